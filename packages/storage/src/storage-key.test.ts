import { collectionPrefix, keyInfo, objectKey, validateKey } from './storage-key.js';

describe('storage keys', () => {
  it('lay out cluster-scoped, namespaced and core objects as Kubernetes does below /registry', () => {
    expect(objectKey('certificates.plat.io', 'clustertrustbundles', '', 'a')).toBe('/certificates.plat.io/clustertrustbundles/a');
    expect(objectKey('rbac.authorization.plat.io', 'roles', 'team-a', 'r')).toBe('/rbac.authorization.plat.io/roles/team-a/r');
    expect(objectKey('', 'namespaces', '', 'team-a')).toBe('//namespaces/team-a');
    expect(collectionPrefix('rbac.authorization.plat.io', 'roles')).toBe('/rbac.authorization.plat.io/roles/');
    expect(collectionPrefix('rbac.authorization.plat.io', 'roles', 'team-a')).toBe('/rbac.authorization.plat.io/roles/team-a/');
  });

  it('name the group, resource and name of a key for error messages', () => {
    expect(keyInfo('/rbac.authorization.plat.io/roles/team-a/r')).toEqual({ groupResource: { group: 'rbac.authorization.plat.io', resource: 'roles' }, name: 'r' });
    expect(keyInfo('//namespaces/team-a')).toEqual({ groupResource: { group: '', resource: 'namespaces' }, name: 'team-a' });
  });
});

describe('validateKey', () => {
  it('accepts a key again and still rejects bad keys after a good one', () => {
    const good = '/g.io/things/a';
    expect(() => validateKey(good)).not.toThrow();
    expect(() => validateKey(good)).not.toThrow();
    for (const bad of ['/', 'g.io/things/a', '/g.io/things/', '/g.io/things/a\u0000']) {
      expect(() => validateKey(bad)).toThrow(TypeError);
      validateKey(good);
    }
  });
});
