import { isStatusError } from '@plat/api-model';
import { applyMergePatch } from './merge-patch.js';

// RFC 7396, Appendix A: target, patch, result.
describe('RFC 7396 appendix A examples', () => {
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('%j + %j = %j', (target, patch, result) => {
    expect(applyMergePatch(target, patch)).toEqual(result);
  });

  // Examples {"a":"foo"} + null and {"a":"foo"} + "bar": RFC 7396 returns the patch; Kubernetes'
  // library refuses a patch that is neither an object nor an array, and so do we.
  it.each([null, 'bar', 1, true])('refuses the scalar patch %j with 400 "Invalid JSON Patch"', (patch) => {
    try {
      applyMergePatch({ a: 'foo' }, patch);
      throw new Error('expected an error');
    } catch (err) {
      expect(isStatusError(err, 'BadRequest')).toBe(true);
      expect((err as Error).message).toBe('Invalid JSON Patch');
    }
  });
});

describe('applyMergePatch (Kubernetes semantics)', () => {
  it('keeps nulls inside a list that replaces an object member', () => {
    expect(applyMergePatch({ a: { x: 1 } }, { a: [{ b: null }] })).toEqual({ a: [{ b: null }] });
  });

  it('drops nulls inside objects of a list that replaces a list', () => {
    expect(applyMergePatch({ a: [1] }, { a: [{ b: null, c: 1 }, null] })).toEqual({ a: [{ c: 1 }, null] });
  });

  it('does not change its inputs or share values with them', () => {
    const doc = { a: { b: 1 } };
    const patch = { a: { c: { d: 1 } } };
    const out = applyMergePatch(doc, patch) as { a: { c: { d: number } } };
    out.a.c.d = 2;
    expect(doc).toEqual({ a: { b: 1 } });
    expect(patch).toEqual({ a: { c: { d: 1 } } });
  });
});
