import { isStatusError } from '@plat/api-model';
import { configMap } from '../test/objects.js';
import { acceptedPatchContentTypes, applyPatch, patchTypeForContentType } from './apply-patch.js';
import { MAX_NESTING_DEPTH } from './json-value.js';
import { registerStrategicSchema } from './strategic-registry.js';
import { objectStrategicSchema, type StrategicSchema } from './strategic-schema.js';

const cm = { apiVersion: 'v1', kind: 'ConfigMap' };

describe('applyPatch', () => {
  it('dispatches each patch type', () => {
    expect(applyPatch(configMap, [{ op: 'replace', path: '/data/a.conf', value: 'j' }], 'json', cm)).toMatchObject({ data: { 'a.conf': 'j' } });
    expect(applyPatch(configMap, { data: { 'a.conf': null } }, 'merge', cm)).toEqual({ ...configMap, data: { 'b.conf': 'y=2' } });
    expect(applyPatch(configMap, { metadata: { finalizers: ['x'] } }, 'strategic', cm)).toMatchObject({ metadata: { finalizers: ['x'] } });
  });

  it('passes server limits to JSON patch', () => {
    const ops = [
      { op: 'add', path: '/data/x', value: '1' },
      { op: 'add', path: '/data/y', value: '2' },
    ];
    expect(() => applyPatch(configMap, ops, 'json', { ...cm, jsonPatch: { maxOperations: 1 } })).toThrow(
      'Request entity too large: The allowed maximum operations in a JSON patch is 1, got 2',
    );
  });

  it('rejects an unknown patch type', () => {
    expect(() => applyPatch({}, {}, 'apply' as never, cm)).toThrow(TypeError);
  });

  it('never hands back the input object', () => {
    const out = applyPatch(configMap, {}, 'merge', cm);
    expect(out).toEqual(configMap);
    expect(out).not.toBe(configMap);
    const err = (() => {
      try {
        applyPatch(configMap, { $patch: 'frob' }, 'strategic', cm);
      } catch (e) {
        return e;
      }
    })();
    expect(isStatusError(err)).toBe(true);
  });
});

describe('patchTypeForContentType', () => {
  it('maps the three patch media types and ignores parameters', () => {
    expect(patchTypeForContentType('application/json-patch+json')).toBe('json');
    expect(patchTypeForContentType('Application/Merge-Patch+JSON; charset=utf-8')).toBe('merge');
    expect(patchTypeForContentType('application/strategic-merge-patch+json')).toBe('strategic');
    expect(patchTypeForContentType('application/apply-patch+yaml')).toBeUndefined();
    expect(patchTypeForContentType('application/json')).toBeUndefined();
  });
});

describe('acceptedPatchContentTypes', () => {
  it('offers strategic merge patch only for kinds with a schema, in kube-apiserver order', () => {
    expect(acceptedPatchContentTypes('certificates.plat.io/v1alpha1', 'ClusterTrustBundle')).toEqual([
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
      'application/apply-patch+yaml',
    ]);
    expect(acceptedPatchContentTypes('stable.example.com/v1', 'CronTab')).toEqual([
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/apply-patch+yaml',
    ]);
  });
});

describe('nesting limit', () => {
  // Alternating map / merge-keyed list levels: the deepest recursion strategic merge patch has.
  const self: StrategicSchema = objectStrategicSchema('Node', {
    k: {},
    v: {},
    items: { list: true, patchStrategy: 'merge', patchMergeKey: 'k', schema: () => self },
  });
  registerStrategicSchema('nesting.plat.io/v1', 'Node', self);
  const meta = { apiVersion: 'nesting.plat.io/v1', kind: 'Node' };

  function nested(levels: number, leaf: Record<string, unknown>): Record<string, unknown> {
    let v: Record<string, unknown> = leaf;
    // Each step adds two levels: the list and the map inside it.
    for (let i = 0; i < levels / 2; i++) v = { k: 'x', items: [v] };
    return v;
  }

  it('patches a document and a patch MAX_NESTING_DEPTH levels deep', () => {
    const doc = nested(MAX_NESTING_DEPTH - 2, { k: 'x', v: 1 });
    const patch = nested(MAX_NESTING_DEPTH - 2, { k: 'x', v: 2 });
    const out = applyPatch(doc, patch, 'strategic', meta);
    expect(JSON.stringify(out)).toBe(JSON.stringify(nested(MAX_NESTING_DEPTH - 2, { k: 'x', v: 2 })));
    expect(applyPatch(doc, patch, 'merge', meta)).toEqual(patch);
    expect(applyPatch(doc, [{ op: 'replace', path: '/k', value: 'y' }], 'json', meta)).toMatchObject({ k: 'y' });
  });

  it.each(['strategic', 'merge', 'json'] as const)('refuses a deeper %s patch with 400', (type) => {
    const deep = nested(MAX_NESTING_DEPTH + 2, { k: 'x' });
    const patch = type === 'json' ? [{ op: 'add', path: '/v', value: deep }] : deep;
    expect(() => applyPatch({ k: 'x' }, patch, type, meta)).toThrow(/^the patch nests deeper than 1000 levels$/);
    try {
      applyPatch(deep, type === 'json' ? [] : {}, type, meta);
      throw new Error('expected an error');
    } catch (err) {
      expect(isStatusError(err, 'BadRequest')).toBe(true);
      expect((err as Error).message).toBe('the document nests deeper than 1000 levels');
    }
  });
});
