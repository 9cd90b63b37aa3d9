import { isStatusError } from '@plat/api-model';
import { decodeContinue, encodeContinue } from './continue-token.js';
import { parseResourceVersion } from './resource-version.js';
import { keyInfo, normalizePrefix, prefixEnd } from './storage-key.js';

const prefix = '/certificates.plat.io/clustertrustbundles/';
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64');

function badRequest(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(isStatusError(err, 'BadRequest')).toBe(true);
    return (err as Error).message;
  }
  throw new Error('expected a BadRequest');
}

describe('continue tokens', () => {
  it('encode the revision and the next key as Kubernetes does, and decode back', () => {
    const token = encodeContinue(`${prefix}b\u0000`, prefix, 42);
    expect(JSON.parse(Buffer.from(token, 'base64').toString())).toEqual({ v: 'meta.k8s.io/v1', rv: 42, start: 'b\u0000' });
    expect(decodeContinue(token, prefix)).toEqual({ revision: 42, startKey: `${prefix}b\u0000` });
    expect(decodeContinue(encodeContinue(`${prefix}c`, prefix, -1), prefix).revision).toBe(-1);
  });

  it('reject tokens that are not ours, are malformed or escape the prefix', () => {
    expect(badRequest(() => decodeContinue('%%%', prefix))).toMatch(/^invalid continue token: continue key is not valid: /);
    expect(badRequest(() => decodeContinue(b64({ v: 'other/v1', rv: 3, start: 'a' }), prefix))).toContain('incorrect encoded start resourceVersion');
    expect(badRequest(() => decodeContinue(b64({ v: 'meta.k8s.io/v1', rv: 0, start: 'a' }), prefix))).toContain('incorrect encoded start resourceVersion');
    expect(badRequest(() => decodeContinue(b64({ v: 'meta.k8s.io/v1', rv: 3, start: '' }), prefix))).toContain('encoded start key is empty');
    expect(badRequest(() => decodeContinue(b64({ v: 'meta.k8s.io/v1', rv: 3, start: '../secrets/x' }), prefix))).toContain('relative path');
    expect(badRequest(() => decodeContinue(b64({ v: 'meta.k8s.io/v1', rv: 3, start: '/abs' }), prefix))).toContain('absolute');
    expect(badRequest(() => decodeContinue(b64([1, 2]), prefix))).toMatch(/continue key is not valid/);
  });
});

describe('resource versions', () => {
  it('parse "" as latest, "0" as any and digits as a revision', () => {
    expect(parseResourceVersion(undefined)).toBeUndefined();
    expect(parseResourceVersion('')).toBeUndefined();
    expect(parseResourceVersion('0')).toBe(0);
    expect(parseResourceVersion('12345')).toBe(12345);
  });

  it('reject anything else with 400', () => {
    for (const bad of ['-1', 'abc', '01', '1.5', ' 1', '99999999999999999999']) {
      expect(badRequest(() => parseResourceVersion(bad))).toContain('invalid resource version');
    }
  });
});

describe('storage keys', () => {
  it('name the group, resource and object for error messages', () => {
    expect(keyInfo('/certificates.plat.io/clustertrustbundles/my-bundle')).toEqual({
      groupResource: { group: 'certificates.plat.io', resource: 'clustertrustbundles' },
      name: 'my-bundle',
    });
    expect(keyInfo('/apps/deployments/ns1/web').name).toBe('web');
  });

  it('treat a prefix with and without the trailing slash alike and end its range after it', () => {
    expect(normalizePrefix('/g/r')).toBe('/g/r/');
    expect(normalizePrefix('/g/r/')).toBe('/g/r/');
    expect(prefixEnd('/g/r/')).toBe('/g/r0');
    expect('/g/r/zzz' < prefixEnd('/g/r/')).toBe(true);
    expect('/g/rx/a' < prefixEnd('/g/r/')).toBe(false);
  });
});
