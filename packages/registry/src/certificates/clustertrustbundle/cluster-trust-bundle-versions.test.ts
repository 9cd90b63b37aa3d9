import { servedResources } from '@plat/server';
import { clusterTrustBundleResource } from './cluster-trust-bundle.js';
import { clusterTrustBundleOpenApi, clusterTrustBundleToStorageVersion } from './cluster-trust-bundle-versions.js';

describe('ClusterTrustBundle versions', () => {
  it('converts an object stored as v1alpha1 to the storage version v1 without touching anything else', () => {
    const old = Object.freeze({
      apiVersion: 'certificates.plat.io/v1alpha1',
      kind: 'ClusterTrustBundle',
      metadata: { name: 'a', resourceVersion: '7' },
      spec: { signerName: '', trustBundle: 'pem' },
    });
    const converted = clusterTrustBundleToStorageVersion(old);
    expect(converted).toEqual({ ...old, apiVersion: 'certificates.plat.io/v1' });
    // Key order is kept (apiVersion where it was), so the stored bytes change only in the version.
    expect(Object.keys(converted)).toEqual(Object.keys(old));
    expect(old.apiVersion).toBe('certificates.plat.io/v1alpha1');
  });

  it('is the identity for an object already in the storage version (no copy on the read path)', () => {
    const stored = { apiVersion: 'certificates.plat.io/v1', kind: 'ClusterTrustBundle', metadata: { name: 'a' }, spec: { trustBundle: 'pem' } };
    expect(clusterTrustBundleToStorageVersion(stored)).toBe(stored);
  });

  it('is served in five group versions, v1 preferred, over the same storage (certificates.plat.io/v1)', () => {
    const served = servedResources([clusterTrustBundleResource()]);
    expect(served.map((r) => `${r.group}/${r.version}`)).toEqual([
      'certificates.plat.io/v1',
      'certificates.plat.io/v1beta1',
      'certificates.plat.io/v1alpha1',
      'certificates.k8s.io/v1',
      'certificates.k8s.io/v1beta1',
    ]);
    for (const r of served) {
      expect([r.storageGroup, r.storageVersion]).toEqual(['certificates.plat.io', 'v1']);
      expect(r.definitions[r.definitionName]!['x-kubernetes-group-version-kind']).toEqual([{ group: r.group, kind: 'ClusterTrustBundle', version: r.version }]);
    }
    expect(served.map((r) => r.definitionName)).toEqual([
      'io.plat.api.certificates.v1.ClusterTrustBundle',
      'io.plat.api.certificates.v1beta1.ClusterTrustBundle',
      'io.plat.api.certificates.v1alpha1.ClusterTrustBundle',
      'io.k8s.api.certificates.v1.ClusterTrustBundle',
      'io.k8s.api.certificates.v1beta1.ClusterTrustBundle',
    ]);
  });

  it('derives each version\'s OpenAPI from v1alpha1\'s: the same fields under renamed definitions and refs', () => {
    const alpha = clusterTrustBundleOpenApi('certificates.plat.io', 'v1alpha1');
    const k8s = clusterTrustBundleOpenApi('certificates.k8s.io', 'v1beta1');
    expect(Object.keys(k8s.definitions).sort()).toEqual([
      'io.k8s.api.certificates.v1beta1.ClusterTrustBundle',
      'io.k8s.api.certificates.v1beta1.ClusterTrustBundleList',
      'io.k8s.api.certificates.v1beta1.ClusterTrustBundleSpec',
    ]);
    const props = (d: typeof alpha, name: string) => Object.keys(d.definitions[name]!.properties ?? {});
    expect(props(k8s, 'io.k8s.api.certificates.v1beta1.ClusterTrustBundleSpec')).toEqual(props(alpha, 'io.plat.api.certificates.v1alpha1.ClusterTrustBundleSpec'));
    const text = JSON.stringify(k8s.definitions);
    expect(text).not.toContain('v1alpha1');
    expect(text).not.toContain('certificates.plat.io');
    expect(text).toContain('"$ref":"#/definitions/io.k8s.api.certificates.v1beta1.ClusterTrustBundleSpec"');
    expect(text).toContain('"$ref":"#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"');
  });
});
