import { isStatusError } from '@plat/api-model';
import { scopeKey, type ResourceScope } from './scope.js';
import { StorageKeys } from './storage-keys.js';

/** The parts of a scope scopeKey reads. */
function scopeOf(namespaced: boolean): ResourceScope {
  return { def: { namespaced, resource: 'things' }, gr: { group: 'g.io', resource: 'things' }, storageGroup: 'g.io', storageKeys: new StorageKeys() } as unknown as ResourceScope;
}

function reason(f: () => unknown): string | undefined {
  try {
    f();
  } catch (err) {
    return isStatusError(err) ? err.status.reason : 'not a Status';
  }
  return undefined;
}

describe('scopeKey', () => {
  it('answers a remembered key as the checks answered it the first time', () => {
    const cluster = scopeOf(false);
    const first = scopeKey(cluster, 'ignored', 'a');
    expect(first).toBe('/g.io/things/a');
    expect(scopeKey(cluster, '', 'a')).toBe(first);
    const namespaced = scopeOf(true);
    expect(scopeKey(namespaced, 'ns', 'a')).toBe('/g.io/things/ns/a');
    expect(scopeKey(namespaced, 'ns', 'a')).toBe('/g.io/things/ns/a');
    expect(scopeKey(namespaced, 'other', 'a')).toBe('/g.io/things/other/a');
  });

  it('still refuses what it refused before a key was remembered', () => {
    const namespaced = scopeOf(true);
    scopeKey(namespaced, 'ns', 'a');
    expect(reason(() => scopeKey(namespaced, '', 'a'))).toBe('BadRequest');
    expect(reason(() => scopeKey(namespaced, 'ns', ''))).toBe('BadRequest');
    for (let i = 0; i < 2; i++) {
      expect(reason(() => scopeKey(namespaced, 'ns', 'a%b'))).toBe('BadRequest');
      expect(reason(() => scopeKey(namespaced, 'ns', '..'))).toBe('BadRequest');
      expect(reason(() => scopeKey(namespaced, 'ns', 'a\u0000'))).toBe('NotFound');
      expect(reason(() => scopeKey(namespaced, 'n\u0000s', 'a'))).toBe('NotFound');
    }
  });
});
