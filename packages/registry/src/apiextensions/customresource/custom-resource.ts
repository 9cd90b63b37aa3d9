import {
  StatusError,
  StatusReason,
  nameIsDNSSubdomain,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type ApiObject,
  type FieldError,
} from '@plat/api-model';
import {
  ageCell,
  ageColumn,
  type OpenApiSchema,
  type ResourceDefinition,
  type ResourceStrategy,
  type SubresourceDefinition,
  type TableColumn,
} from '@plat/server';
import { storageVersionOf, type CustomResourceColumnDefinition, type CustomResourceDefinition, type CustomResourceDefinitionVersion, type JsonSchemaProps } from '../customresourcedefinition/crd-types.js';
import { validateAgainstSchema } from './schema-validation.js';

const objectMetaRef = '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const listMetaRef = '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';

/** Kubernetes' definition name of a custom kind: the group reversed, the version, the kind (`com.example.stable.v1.CronTab`). */
export function customResourceDefinitionName(group: string, version: string, kind: string): string {
  return [...group.split('.').reverse(), version, kind].join('.');
}

/** The openAPIV3Schema as an OpenAPI v2 definition of the kind: apiVersion, kind and metadata as every kind has them. */
function kindDefinition(group: string, version: string, kind: string, schema: JsonSchemaProps): OpenApiSchema {
  const def = structuredClone(schema) as OpenApiSchema;
  def.properties = {
    ...def.properties,
    apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
    kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
    metadata: { $ref: objectMetaRef },
  };
  def['x-kubernetes-group-version-kind'] = [{ group, kind, version }];
  return def;
}

function definitionsOf(crd: CustomResourceDefinition, version: CustomResourceDefinitionVersion) {
  const { group = '', names = {} } = crd.spec ?? {};
  const kind = names.kind ?? '';
  const name = customResourceDefinitionName(group, version.name ?? '', kind);
  const schema = version.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  return {
    definitionName: name,
    definitions: {
      [name]: kindDefinition(group, version.name ?? '', kind, schema),
      [`${name}List`]: {
        description: `${names.listKind ?? ''} is a list of ${kind}`,
        type: 'object',
        required: ['items'],
        properties: {
          apiVersion: { type: 'string' },
          items: { type: 'array', items: { $ref: `#/definitions/${name}` } },
          kind: { type: 'string' },
          metadata: { $ref: listMetaRef },
        },
        'x-kubernetes-group-version-kind': [{ group, kind: names.listKind ?? '', version: version.name ?? '' }],
      } satisfies OpenApiSchema,
    },
  };
}

/** A simple JSONPath of an additional printer column (`.spec.replicas`): dot-separated fields only. */
function readPath(obj: unknown, jsonPath: string): unknown {
  let v: unknown = obj;
  for (const part of jsonPath.replace(/^\./, '').split('.')) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

const columnTypes = new Set(['string', 'integer', 'number', 'boolean', 'date']);

function cellOf(obj: ApiObject, column: CustomResourceColumnDefinition): unknown {
  const v = readPath(obj, column.jsonPath ?? '');
  if (v === undefined || v === null) return null;
  if (column.type === 'date' && typeof v === 'string') return v;
  return typeof v === 'object' ? JSON.stringify(v) : v;
}

/** Everything but metadata and status (what counts as the spec for generation, with a status subresource). */
function specOf(obj: ApiObject): string {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj as Record<string, unknown>;
  return JSON.stringify(rest);
}

/**
 * Kubernetes' custom resource strategy (staging/src/k8s.io/apiextensions-apiserver/pkg/registry/
 * customresource/strategy.go): metadata rules of the scope, the version's schema, generation
 * counting changes outside metadata (and status, when it is a subresource), status kept on updates
 * of the main resource when the version declares the status subresource.
 */
function customResourceStrategy(crd: CustomResourceDefinition, namespaced: boolean): ResourceStrategy {
  const versions = new Map((crd.spec?.versions ?? []).map((v) => [v.name ?? '', v]));
  const group = crd.spec?.group ?? '';
  const versionOf = (obj: ApiObject) => versions.get((obj.apiVersion ?? '').slice(group.length + 1));
  const hasStatus = (obj: ApiObject) => versionOf(obj)?.subresources?.status !== undefined;
  const schemaErrors = (obj: ApiObject): FieldError[] => {
    const schema = versionOf(obj)?.schema?.openAPIV3Schema;
    return schema ? validateAgainstSchema(obj as Record<string, unknown>, schema) : [];
  };
  const storageVersion = versions.get(storageVersionOf(crd));
  const columns = storageVersion?.additionalPrinterColumns ?? [];
  const tableColumns: TableColumn[] = columns.length
    ? columns.map((c) => ({
        name: c.name ?? '',
        type: (columnTypes.has(c.type ?? '') ? c.type : 'string') as TableColumn['type'],
        description: c.description ?? '',
        ...(c.format ? { format: c.format } : {}),
        ...(c.priority ? { priority: c.priority } : {}),
      }))
    : [ageColumn];
  const terminating = !!crd.metadata?.deletionTimestamp;
  return {
    // kube-apiserver's crdHandler: no new objects while the CRD's are being deleted.
    ...(terminating
      ? {
          async admit(req) {
            if (req.operation !== 'CREATE') return;
            throw new StatusError({
              code: 405,
              reason: StatusReason.MethodNotAllowed,
              message: 'create not allowed while custom resource definition is terminating',
              details: { group, kind: req.request.resource },
            });
          },
        }
      : {}),
    prepareForCreate(obj) {
      if (hasStatus(obj)) delete (obj as Record<string, unknown>)['status'];
      (obj.metadata ??= {}).generation = 1;
    },
    prepareForUpdate(obj, old) {
      const status = hasStatus(obj);
      if (status) {
        const prev = (old as Record<string, unknown>)['status'];
        if (prev === undefined) delete (obj as Record<string, unknown>)['status'];
        else (obj as Record<string, unknown>)['status'] = structuredClone(prev);
      }
      const changed = status ? specOf(obj) !== specOf(old) : JSON.stringify({ ...obj, metadata: undefined }) !== JSON.stringify({ ...old, apiVersion: obj.apiVersion, metadata: undefined });
      const generation = old.metadata?.generation ?? 1;
      (obj.metadata ??= {}).generation = changed ? generation + 1 : generation;
    },
    validate: (obj) => [...validateObjectMeta(obj.metadata, { namespaced, nameFn: nameIsDNSSubdomain }), ...schemaErrors(obj)],
    validateUpdate: (obj, old) => [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...schemaErrors(obj)],
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    selectableFields: (obj) => ({ 'metadata.name': obj.metadata?.name ?? '' }),
    selectableFieldNames: ['metadata.name'],
    tableColumns,
    tableCells: (obj) => (columns.length ? columns.map((c) => cellOf(obj, c)) : [ageCell(obj)]),
  };
}

/** `<plural>/status` of a version that declares it: only status changes (Kubernetes' statusStrategy). */
function statusSubresource(): SubresourceDefinition {
  return {
    verbs: ['update'],
    strategy: {
      prepareForUpdate(obj, old) {
        const status = (obj as Record<string, unknown>)['status'];
        const next = structuredClone(old) as Record<string, unknown>;
        for (const key of Object.keys(obj)) if (key !== 'metadata') delete (obj as Record<string, unknown>)[key];
        for (const [key, value] of Object.entries(next)) if (key !== 'metadata') (obj as Record<string, unknown>)[key] = value;
        if (status === undefined) delete (obj as Record<string, unknown>)['status'];
        else (obj as Record<string, unknown>)['status'] = status;
        const meta = (obj.metadata ??= {});
        const prevMeta = old.metadata ?? {};
        for (const field of ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const) {
          if (prevMeta[field] === undefined) delete meta[field];
          else (meta as Record<string, unknown>)[field] = structuredClone(prevMeta[field]);
        }
      },
    },
  };
}

/**
 * The resource an Established CustomResourceDefinition defines, as the server serves it: its
 * group, its served versions (the storage version's objects under each: conversion `None`), its
 * scope, names, schema (validation, pruning, OpenAPI), printer columns and status subresource.
 * Stored under `/<group>/<plural>/[<namespace>/]<name>`, as Kubernetes keys custom resources.
 */
export function customResourceDefinitions(crd: CustomResourceDefinition): ResourceDefinition[] {
  const spec = crd.spec ?? {};
  const group = spec.group ?? '';
  const names = crd.status?.acceptedNames?.plural ? crd.status.acceptedNames : (spec.names ?? {});
  const storage = storageVersionOf(crd);
  const versions = (spec.versions ?? []).filter((v) => v.served);
  if (!group || !storage || !versions.length || !names.plural || !names.kind) return [];
  const namespaced = spec.scope === 'Namespaced';
  const byVersion = new Map(versions.map((v) => [v.name ?? '', definitionsOf(crd, v)]));
  // Served versions in Kubernetes' priority order: GA before beta before alpha, higher first
  // (apimachinery's version.CompareKubeAwareVersionStrings); the storage one's definitions otherwise.
  const served = versions.map((v) => v.name ?? '').sort(compareKubeAwareVersions);
  const own = byVersion.get(storage) ?? byVersion.get(served[0]!)!;
  const withStatus = (spec.versions ?? []).some((v) => v.served && v.subresources?.status !== undefined);
  return [
    {
      group,
      version: storage,
      servedVersions: { [group]: served },
      openApiAs: (_group, version) => byVersion.get(version) ?? own,
      ...own,
      resource: names.plural,
      singular: names.singular || names.kind.toLowerCase(),
      kind: names.kind,
      listKind: names.listKind || `${names.kind}List`,
      namespaced,
      shortNames: names.shortNames ?? [],
      categories: names.categories ?? [],
      unstructured: true,
      strategy: customResourceStrategy(crd, namespaced),
      ...(withStatus ? { subresources: { status: statusSubresource() } } : {}),
    },
  ];
}

/** apimachinery's CompareKubeAwareVersionStrings as a sort: v2 > v1 > v1beta2 > v1beta1 > v1alpha1 > other names (alphabetical). */
export function compareKubeAwareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return undefined;
    return { major: Number(m[1]), stage: m[2] === 'alpha' ? 0 : m[2] === 'beta' ? 1 : 2, minor: Number(m[3] ?? 0) };
  };
  const pa = parse(a);
  const pb = parse(b);
  if (!pa || !pb) return pa ? -1 : pb ? 1 : a.localeCompare(b);
  if (pa.stage !== pb.stage) return pb.stage - pa.stage;
  if (pa.major !== pb.major) return pb.major - pa.major;
  return pb.minor - pa.minor;
}
