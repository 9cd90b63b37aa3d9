// ClusterTrustBundle's group, version, kind and resource names, apart from its zod schemas so that
// clients needing only the names (a path, a kind check) load no zod.

export const certificatesGroup = 'certificates.plat.io';
export const clusterTrustBundleVersion = 'v1alpha1';
export const clusterTrustBundleApiVersion = `${certificatesGroup}/${clusterTrustBundleVersion}`;
export const clusterTrustBundleKind = 'ClusterTrustBundle';
export const clusterTrustBundleListKind = 'ClusterTrustBundleList';
export const clusterTrustBundleResource = 'clustertrustbundles';
/** The resource the `attest` permission is checked on, with the signer name as resourceName. */
export const signersResource = 'signers';
