import {
  certificatesGroup,
  certificatesKubernetesGroup,
  clusterTrustBundleStorageVersion,
  type ApiObject,
} from '@plat/api-model';
import type { OpenApiKind, OpenApiSchema, ProtobufMessage } from '@plat/server';
import {
  certificatesV1alpha1Definitions,
  certificatesV1alpha1KubernetesDefinitions,
  certificatesV1beta1Definitions,
  certificatesV1beta1KubernetesDefinitions,
  certificatesV1Definitions,
  certificatesV1KubernetesDefinitions,
} from '../../kind-definitions.generated.js';
import { certificatesV1ClusterTrustBundleMessage } from '../../kind-protobuf.generated.js';

/**
 * ClusterTrustBundle in every version it is served in. Kubernetes' certificates.k8s.io v1alpha1,
 * v1beta1 and v1 have the same fields (k8s.io/api certificates/*\/generated.proto: the same
 * messages and field numbers), so a version differs only in its name: conversion through the
 * storage version (the hub) renames apiVersion.
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

/**
 * The generated OpenAPI v2 definitions of ClusterTrustBundle (+List, +Spec) per group name and
 * version (tools/kube-codegen, from each version's generated.proto): Kubernetes' definition names
 * under certificates.k8s.io, plat's under certificates.plat.io.
 */
const generated: Record<string, Record<string, OpenApiSchema>> = {
  [`${certificatesGroup}/v1alpha1`]: certificatesV1alpha1Definitions,
  [`${certificatesGroup}/v1beta1`]: certificatesV1beta1Definitions,
  [`${certificatesGroup}/v1`]: certificatesV1Definitions,
  [`${certificatesKubernetesGroup}/v1alpha1`]: certificatesV1alpha1KubernetesDefinitions,
  [`${certificatesKubernetesGroup}/v1beta1`]: certificatesV1beta1KubernetesDefinitions,
  [`${certificatesKubernetesGroup}/v1`]: certificatesV1KubernetesDefinitions,
};

/** The OpenAPI v2 description of ClusterTrustBundle as served under `group` in `version`. */
export function clusterTrustBundleOpenApi(group: string, version: string): OpenApiKind {
  const definitions = generated[`${group}/${version}`];
  if (!definitions) throw new Error(`no ClusterTrustBundle definitions for ${group}/${version}`);
  const prefix = `${group === certificatesKubernetesGroup ? 'io.k8s.api' : 'io.plat.api'}.certificates.${version}.`;
  return { definitionName: `${prefix}ClusterTrustBundle`, definitions };
}

/**
 * The ClusterTrustBundle message of k8s.io/api certificates/{v1alpha1,v1beta1,v1}/generated.proto:
 * the same fields and numbers in each (metadata = 1, spec = 2 { signerName = 1, trustBundle = 2 }).
 */
export const clusterTrustBundleMessage: ProtobufMessage = certificatesV1ClusterTrustBundleMessage;
