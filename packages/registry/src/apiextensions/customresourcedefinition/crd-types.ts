import type { ApiObject } from '@plat/api-model';

/** apiextensions.k8s.io/v1 JSONSchemaProps, as far as plat reads it (the rest is kept as sent). */
export interface JsonSchemaProps {
  type?: string;
  format?: string;
  description?: string;
  properties?: Record<string, JsonSchemaProps>;
  additionalProperties?: JsonSchemaProps | boolean;
  items?: JsonSchemaProps | JsonSchemaProps[];
  required?: string[];
  enum?: unknown[];
  nullable?: boolean;
  default?: unknown;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  [other: string]: unknown;
}

export interface CustomResourceDefinitionNames {
  plural?: string;
  singular?: string;
  kind?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CustomResourceColumnDefinition {
  name?: string;
  type?: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath?: string;
}

export interface CustomResourceDefinitionVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  schema?: { openAPIV3Schema?: JsonSchemaProps };
  subresources?: { status?: Record<string, unknown>; scale?: Record<string, unknown> };
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
  [other: string]: unknown;
}

export interface CustomResourceDefinitionCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface CustomResourceDefinition extends ApiObject {
  spec?: {
    group?: string;
    names?: CustomResourceDefinitionNames;
    scope?: string;
    versions?: CustomResourceDefinitionVersion[];
    conversion?: { strategy?: string; webhook?: unknown };
    preserveUnknownFields?: boolean;
  };
  status?: {
    conditions?: CustomResourceDefinitionCondition[];
    acceptedNames?: CustomResourceDefinitionNames;
    storedVersions?: string[];
  };
}

/** Whether a condition of the CRD's status is True (Kubernetes' IsCRDConditionTrue). */
export function isConditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return (crd.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
}

/** The version objects are stored in: the one marked `storage: true` (validation allows exactly one). */
export function storageVersionOf(crd: CustomResourceDefinition): string {
  return (crd.spec?.versions ?? []).find((v) => v.storage)?.name ?? '';
}
