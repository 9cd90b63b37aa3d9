import {
  certificatesGroup,
  certificatesKubernetesGroup,
  clusterTrustBundleStorageVersion,
  clusterTrustBundleVersion,
  type ApiObject,
} from '@plat/api-model';
import { objectMetaMessage, protobufMessage, protobufString, type OpenApiKind, type OpenApiSchema, type ProtobufMessage } from '@plat/server';
import { clusterTrustBundleDefinitions } from '../../kind-definitions.generated.js';

/**
 * ClusterTrustBundle in every version it is served in. Kubernetes' certificates.k8s.io v1alpha1,
 * v1beta1 and v1 have the same fields (k8s.io/api certificates/*\/generated.proto: the same
 * messages and field numbers), so a version differs only in its name: conversion through the
 * storage version (the hub) renames apiVersion, and the OpenAPI of each version is v1alpha1's
 * under the version's definition names.
 */

const storageApiVersion = `${certificatesGroup}/${clusterTrustBundleStorageVersion}`;

/**
 * The object in the storage version (`certificates.plat.io/v1`) from one in any version it was
 * ever stored in (every data directory before v1 holds `certificates.plat.io/v1alpha1`): the
 * fields are the same, so only apiVersion changes. Identity when already there.
 */
export function clusterTrustBundleToStorageVersion(obj: ApiObject): ApiObject {
  return obj.apiVersion === storageApiVersion ? obj : { ...obj, apiVersion: storageApiVersion };
}

/** The prefix of the definition names of `group`: plat's own, or Kubernetes' (io.k8s.api.certificates). */
function definitionPrefix(group: string, version: string): string {
  return `${group === certificatesKubernetesGroup ? 'io.k8s.api' : 'io.plat.api'}.certificates.${version}.`;
}

const generatedPrefix = definitionPrefix(certificatesGroup, clusterTrustBundleVersion);

/**
 * The OpenAPI v2 definitions of ClusterTrustBundle (+List, +Spec) as served under `group` in
 * `version`: the generated v1alpha1 ones with names, refs and x-kubernetes-group-version-kind
 * renamed (and, under Kubernetes' group, its group name in the descriptions, as upstream's read).
 */
export function clusterTrustBundleOpenApi(group: string, version: string): OpenApiKind {
  const prefix = definitionPrefix(group, version);
  const definitions: Record<string, OpenApiSchema> = {};
  for (const [name, schema] of Object.entries(clusterTrustBundleDefinitions)) {
    let text = JSON.stringify(schema).replaceAll(`#/definitions/${generatedPrefix}`, `#/definitions/${prefix}`);
    if (group !== certificatesGroup) text = text.replaceAll(certificatesGroup, group);
    const renamed = JSON.parse(text) as OpenApiSchema & { 'x-kubernetes-group-version-kind'?: { group: string; kind: string; version: string }[] };
    for (const gvk of renamed['x-kubernetes-group-version-kind'] ?? []) gvk.version = version;
    definitions[prefix + name.slice(generatedPrefix.length)] = renamed;
  }
  return { definitionName: `${prefix}ClusterTrustBundle`, definitions };
}

/**
 * The ClusterTrustBundle message of k8s.io/api certificates/{v1alpha1,v1beta1,v1}/generated.proto
 * (the same in each): metadata = 1, spec = 2 { signerName = 1, trustBundle = 2 }.
 */
export const clusterTrustBundleMessage: ProtobufMessage = {
  1: protobufMessage('metadata', objectMetaMessage),
  2: protobufMessage('spec', { 1: protobufString('signerName'), 2: protobufString('trustBundle') }),
};
