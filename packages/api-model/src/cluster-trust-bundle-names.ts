// ClusterTrustBundle's group, version, kind and resource names, apart from its zod schemas so that
// clients needing only the names (a path, a kind check) load no zod.

export const certificatesGroup = 'certificates.plat.io';
/** Kubernetes' name of the group: ClusterTrustBundles are served under it too (the same objects). */
export const certificatesKubernetesGroup = 'certificates.k8s.io';
/** The first version plat served (what clients of older servers ask for); still served. */
export const clusterTrustBundleVersion = 'v1alpha1';
export const clusterTrustBundleApiVersion = `${certificatesGroup}/${clusterTrustBundleVersion}`;
/** The version ClusterTrustBundles are stored in (objects stored as v1alpha1 earlier are read as they are). */
export const clusterTrustBundleStorageVersion = 'v1';
/**
 * The versions ClusterTrustBundle is served in under each group name, preferred first (Kubernetes
 * serves certificates.k8s.io v1beta1 since 1.33 and v1 since its GA; the fields are the same).
 */
export const clusterTrustBundleServedVersions: Readonly<Record<string, readonly string[]>> = {
  [certificatesGroup]: ['v1', 'v1beta1', 'v1alpha1'],
  [certificatesKubernetesGroup]: ['v1', 'v1beta1'],
};
export const clusterTrustBundleKind = 'ClusterTrustBundle';
export const clusterTrustBundleListKind = 'ClusterTrustBundleList';
export const clusterTrustBundleResource = 'clustertrustbundles';
/** The resource the `attest` permission is checked on, with the signer name as resourceName. */
export const signersResource = 'signers';
