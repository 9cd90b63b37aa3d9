import { isStatusError, type StatusError } from '@plat/api-model';
import { applyJsonPatch, decodeJsonPatch } from './json-patch.js';

function failure(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    if (isStatusError(err)) return err;
    throw err;
  }
  throw new Error('expected a StatusError');
}

// RFC 6902, Appendix A: each example with its stated outcome.
describe('RFC 6902 appendix A examples', () => {
  it.each([
    ['A.1 adding an object member', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }], { baz: 'qux', foo: 'bar' }],
    ['A.2 adding an array element', { foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }], { foo: ['bar', 'qux', 'baz'] }],
    ['A.3 removing an object member', { baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' }],
    ['A.4 removing an array element', { foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }], { foo: ['bar', 'baz'] }],
    ['A.5 replacing a value', { baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }], { baz: 'boo', foo: 'bar' }],
    [
      'A.6 moving a value',
      { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
      [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
      { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
    ],
    ['A.7 moving an array element', { foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }], { foo: ['all', 'cows', 'eat', 'grass'] }],
    [
      'A.8 testing a value: success',
      { baz: 'qux', foo: ['a', 2, 'c'] },
      [
        { op: 'test', path: '/baz', value: 'qux' },
        { op: 'test', path: '/foo/1', value: 2 },
      ],
      { baz: 'qux', foo: ['a', 2, 'c'] },
    ],
    ['A.10 adding a nested member object', { foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }], { foo: 'bar', child: { grandchild: {} } }],
    ['A.11 ignoring unrecognized elements', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }], { foo: 'bar', baz: 'qux' }],
    ['A.14 ~ escape ordering', { '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: 10 }], { '/': 9, '~1': 10 }],
    ['A.16 adding an array value', { foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], { foo: ['bar', ['abc', 'def']] }],
  ])('%s', (_name, doc, patch, expected) => {
    expect(applyJsonPatch(doc, patch)).toEqual(expected);
  });

  it('A.9 testing a value: error', () => {
    const err = failure(() => applyJsonPatch({ baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }]));
    expect(err.message).toBe('testing value /baz failed: test failed');
  });

  it('A.12 adding to a nonexistent target', () => {
    const err = failure(() => applyJsonPatch({ foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }]));
    expect(err.message).toBe('add operation does not apply: doc is missing path: "/baz/bat": missing value');
  });

  // A.13 (an operation object with two "op" members) cannot be expressed once the patch is
  // decoded: JSON.parse and Go's decoder both keep the last member.

  it('A.15 comparing strings and numbers', () => {
    const err = failure(() => applyJsonPatch({ '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: '10' }]));
    expect(err.message).toBe('testing value /~01 failed: test failed');
  });
});

describe('applyJsonPatch (Kubernetes semantics)', () => {
  it('takes a null patch as no operations (Go decodes it into a nil Patch)', () => {
    expect(decodeJsonPatch(null)).toEqual([]);
    expect(applyJsonPatch({ a: 1 }, null)).toEqual({ a: 1 });
    expect(failure(() => applyJsonPatch({ a: 1 }, 'x')).message).toBe('json: cannot unmarshal string into Go value of type jsonpatch.Patch');
  });

  it('answers an operation failure with 422 Invalid naming the operation and path', () => {
    const err = failure(() => applyJsonPatch({ a: {} }, [{ op: 'remove', path: '/a/b' }]));
    expect(err.code).toBe(422);
    expect(err.reason).toBe('Invalid');
    expect(err.message).toBe("error in remove for path: '/a/b': Unable to remove nonexistent key: b: missing value");
  });

  it('stops at the first failing operation and leaves the input alone', () => {
    const doc = { a: 1, list: [1, 2] };
    const patch = [
      { op: 'add', path: '/b', value: 2 },
      { op: 'remove', path: '/list/5' },
      { op: 'add', path: '/c', value: 3 },
    ];
    const err = failure(() => applyJsonPatch(doc, patch));
    expect(err.message).toBe("error in remove for path: '/list/5': Unable to access invalid index: 5: invalid index referenced");
    expect(doc).toEqual({ a: 1, list: [1, 2] });
  });

  it('does not share values between the patch and the result', () => {
    const value = { deep: [1] };
    const out = applyJsonPatch({}, [{ op: 'add', path: '/v', value }]) as { v: { deep: number[] } };
    out.v.deep.push(2);
    expect(value.deep).toEqual([1]);
  });

  it('sets a missing member on replace, as the Kubernetes library does', () => {
    expect(applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '/b', value: 2 }])).toEqual({ a: 1, b: 2 });
  });

  it('counts negative indices from the end', () => {
    expect(applyJsonPatch({ l: [1, 2, 3] }, [{ op: 'remove', path: '/l/-1' }])).toEqual({ l: [1, 2] });
    expect(applyJsonPatch({ l: [1, 2, 3] }, [{ op: 'add', path: '/l/-1', value: 9 }])).toEqual({ l: [1, 2, 3, 9] });
    expect(applyJsonPatch({ l: [1, 2, 3] }, [{ op: 'test', path: '/l/-3', value: 1 }])).toEqual({ l: [1, 2, 3] });
  });

  it('appends with "-" and inserts at the length', () => {
    expect(applyJsonPatch({ l: [1] }, [{ op: 'add', path: '/l/-', value: 2 }, { op: 'add', path: '/l/2', value: 3 }])).toEqual({ l: [1, 2, 3] });
  });

  it('unescapes ~1 and ~0 in reference tokens', () => {
    expect(applyJsonPatch({ a: {} }, [{ op: 'add', path: '/a/x~1y~0z', value: 1 }])).toEqual({ a: { 'x/y~z': 1 } });
  });

  it('writes null for add without a value and treats null as absent in test', () => {
    expect(applyJsonPatch({}, [{ op: 'add', path: '/n' }, { op: 'test', path: '/n', value: null }, { op: 'test', path: '/missing', value: null }])).toEqual({ n: null });
  });

  it('copies deeply', () => {
    const out = applyJsonPatch({ a: { b: [1] } }, [{ op: 'copy', from: '/a', path: '/c' }]) as Record<string, { b: number[] }>;
    out.c.b.push(2);
    expect(out.a.b).toEqual([1]);
  });

  it('replaces and tests the whole document at path ""', () => {
    expect(applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '', value: { b: 2 } }])).toEqual({ b: 2 });
    expect(applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '', value: 'scalar' }])).toEqual({ a: 1 });
    expect(applyJsonPatch({ a: 1 }, [{ op: 'test', path: '', value: { a: 1 } }])).toEqual({ a: 1 });
    expect(failure(() => applyJsonPatch({ a: 1 }, [{ op: 'test', path: '', value: {} }])).message).toBe('testing value  failed: test failed');
  });

  it('patches a document that is an array', () => {
    expect(applyJsonPatch([1, 2], [{ op: 'remove', path: '/0' }])).toEqual([2]);
  });

  it.each([
    [[{ op: 'nope', path: '/a' }], 'Unexpected kind: nope'],
    [[{ path: '/a' }], 'Unexpected kind: unknown'],
    [[{ op: 'add', value: 1 }], 'add operation failed to decode path: missing value'],
    [[{ op: 'remove' }], 'remove operation failed to decode path: missing value'],
    [[{ op: 'replace', value: 1 }], 'replace operation failed to decode path: operation missing path field: missing value'],
    [[{ op: 'replace', path: 3, value: 1 }], 'replace operation failed to decode path: json: cannot unmarshal number into Go value of type string'],
    [[{ op: 'move', path: '/a' }], 'move operation failed to decode from: operation, missing from field: missing value'],
    [[{ op: 'copy', path: '/a' }], 'copy operation failed to decode from: operation, missing from field: missing value'],
    [[{ op: 'add', path: '/l/x', value: 1 }], `error in add for path: '/l/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`],
    [[{ op: 'add', path: '/l/9', value: 1 }], "error in add for path: '/l/9': Unable to access invalid index: 9: invalid index referenced"],
    [[{ op: 'replace', path: '/l/4', value: 1 }], 'Object to be patched is missing field (/l/4: missing value)'],
    [[{ op: 'test', path: '/l/x', value: 1 }], `error in test for path: '/l/x': strconv.Atoi: parsing "x": invalid syntax`],
    [[{ op: 'move', from: '/nope', path: '/a' }], "error in move for path: 'nope': Unable to remove nonexistent key: nope: missing value"],
    [[{ op: 'add', path: '', value: 1 }], 'add operation does not apply: doc is missing path: "": missing value'],
    [[{ op: 'add', path: '/s/x', value: 1 }], 'add operation does not apply: doc is missing path: "/s/x": missing value'],
  ])('reports %j as %s', (patch, message) => {
    expect(failure(() => applyJsonPatch({ l: [1, 2], s: 'str' }, patch)).message).toBe(message);
  });

  it('refuses a patch that is not a list of operations with 400 BadRequest', () => {
    const notList = failure(() => decodeJsonPatch({ op: 'add' }));
    expect(notList.code).toBe(400);
    expect(notList.message).toBe('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
    expect(failure(() => applyJsonPatch({}, ['x'])).message).toBe('json: cannot unmarshal string into Go value of type jsonpatch.Operation');
  });
});

describe('applyJsonPatch server limits', () => {
  it('refuses more operations than allowed with 413, before applying any', () => {
    const ops = Array.from({ length: 4 }, (_, i) => ({ op: 'add', path: `/k${i}`, value: i }));
    const err = failure(() => applyJsonPatch({}, ops, { maxOperations: 3 }));
    expect(err.code).toBe(413);
    expect(err.message).toBe('Request entity too large: The allowed maximum operations in a JSON patch is 3, got 4');
    expect(applyJsonPatch({}, ops, { maxOperations: 4 })).toEqual({ k0: 0, k1: 1, k2: 2, k3: 3 });
  });

  it('limits the bytes copy operations add, counting as Go encodes JSON', () => {
    const doc = { a: 'x<y' }; // Go writes "x\u003cy": 10 bytes
    const copyTwice = [
      { op: 'copy', from: '/a', path: '/b' },
      { op: 'copy', from: '/a', path: '/c' },
    ];
    expect(applyJsonPatch(doc, copyTwice, { maxCopyBytes: 20 })).toEqual({ a: 'x<y', b: 'x<y', c: 'x<y' });
    const err = failure(() => applyJsonPatch(doc, copyTwice, { maxCopyBytes: 19 }));
    expect(err.message).toBe('Unable to complete the copy, the accumulated size increase of copy is 20, exceeding the limit 19');
  });
});

// An independent implementation as oracle: where fast-json-patch (RFC 6902, strict) and we both
// succeed, the documents must be equal. Where only one succeeds, the difference must be one of
// the Kubernetes library's documented departures from RFC 6902 (see json-patch.ts).
describe('agreement with fast-json-patch on seeded random patches', () => {
  it('gives the same document whenever both succeed', async () => {
    const { default: fjp } = await import('fast-json-patch');
    const { deployment } = await import('../test/objects.js');
    const { jsonPatchGen, reseed } = await import('../test/random-patches.js');
    reseed(2024);
    let compared = 0;
    for (let i = 0; i < 600; i++) {
      const patch = jsonPatchGen() as Record<string, unknown>[];
      let ours: unknown;
      let theirs: unknown;
      try {
        ours = applyJsonPatch(deployment, patch);
      } catch {
        ours = undefined;
      }
      try {
        theirs = fjp.applyPatch(structuredClone(deployment), structuredClone(patch) as never, true, false).newDocument;
      } catch {
        theirs = undefined;
      }
      // Replacing the whole document with a scalar: the RFC does, the Kubernetes library ignores it.
      if (patch.some((op) => op.op === 'replace' && op.path === '' && (typeof op.value !== 'object' || op.value === null))) continue;
      if (ours !== undefined && theirs !== undefined) {
        expect({ patch, doc: ours }).toEqual({ patch, doc: theirs });
        compared++;
      } else if (ours !== undefined) {
        // We succeed where the RFC fails only through the Kubernetes departures.
        const departs = patch.some(
          (op) =>
            op.op === 'replace' ||
            op.op === 'copy' ||
            (typeof op.path === 'string' && (/\/-\d/.test(op.path) || !op.path.startsWith('/'))) ||
            (typeof op.from === 'string' && /\/-\d/.test(op.from)) ||
            !('value' in op) ||
            (op.op === 'test' && op.value === null),
        );
        expect({ patch, departs }).toEqual({ patch, departs: true });
      }
    }
    expect(compared).toBeGreaterThan(50);
  });
});
