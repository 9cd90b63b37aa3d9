import fc from 'fast-check';
import {
  ServerRequestContext,
  requestTargetMemoEntries,
  requestTargetMemoLength,
  splitRequestTarget,
  splitRequestTargetUnmemoised,
  type IncomingRequest,
  type OutgoingResponse,
} from './context.js';

describe('splitRequestTarget', () => {
  it.each([
    ['/apis/certificates.plat.io/v1alpha1/clustertrustbundles/a', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/a', ''],
    ['/apis/g/v1/r?watch=true&labelSelector=a%3Db', '/apis/g/v1/r', 'watch=true&labelSelector=a%3Db'],
    ['/version?', '/version', ''],
    ['/', '/', ''],
  ])('splits the plain target %s without the URL parser', (target, path, query) => {
    const got = splitRequestTarget(target);
    expect(got).toEqual({ path, query });
  });

  it.each([
    ['/apis/../version', '/version'],
    ['/apis/./g', '/apis/g'],
    ['/a%2Fb/c', '/a%2Fb/c'],
    ['/a b', '/a%20b'],
    ['//evil/x', '/x'],
    ['/x#frag', '/x'],
  ])('answers what new URL() answers for %s', (target, path) => {
    const got = splitRequestTarget(target);
    expect(got.path).toBe(path);
    expect(got.path).toBe(new URL(target, 'https://localhost').pathname);
    expect(got.url).toBeInstanceOf(URL);
  });

  // Plain targets are remembered by the target as sent; the URL parser's splits are not.
  it('answers from its memo what it answers without it, for any target (fast-check)', () => {
    const piece = fc.constantFrom('/', 'api', 'apis', 'g.io', 'v1', '.', '..', '%2F', '%zz', ' ', '#', '?', '&', '=', 'a', 'é', '//', 'watch=true', '~');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), fc.boolean(), (pieces, rooted) => {
        const target = `${rooted ? '/' : ''}${pieces.join('')}`;
        const want = splitRequestTargetUnmemoised(target);
        for (let i = 0; i < 2; i++) {
          const got = splitRequestTarget(target);
          expect({ path: got.path, query: got.query, href: got.url?.href }).toEqual({ path: want.path, query: want.query, href: want.url?.href });
          if (got.url === undefined) expect(Object.isFrozen(got)).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('answers a plain target from its memo with the same path string, bounded in entries and length', () => {
    const target = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/memo-a?pretty=true';
    const first = splitRequestTarget(target);
    expect(splitRequestTarget(['/apis', target.slice(5)].join(''))).toBe(first);
    // A target the URL parser splits gets its own URL object each time.
    expect(splitRequestTarget('/a/../b').url).not.toBe(splitRequestTarget('/a/../b').url);
    const long = `/apis/g.io/v1/things/${'n'.repeat(requestTargetMemoLength)}`;
    expect(splitRequestTarget(long)).not.toBe(splitRequestTarget(long));
    expect(splitRequestTarget(long)).toEqual({ path: long, query: '' });
    // Past the bound the memo starts empty again: the first target's split is made anew.
    for (let i = 0; i < requestTargetMemoEntries; i++) splitRequestTarget(`/apis/g.io/v1/things/n${i}`);
    const again = splitRequestTarget(target);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});

describe('ServerRequestContext.query', () => {
  const request = (url: string) =>
    new ServerRequestContext({ url } as IncomingRequest, {} as OutgoingResponse, 'GET', splitRequestTarget(url), 'id', 0n);

  it('parses a query, and shares one read-only instance between requests without one', () => {
    expect(request('/apis/g/v1/r?watch=true&watch=false').query.getAll('watch')).toEqual(['true', 'false']);
    expect(request('/x/../apis/g/v1/r?resourceVersion=5').query.get('resourceVersion')).toBe('5');
    const a = request('/apis/g/v1/r').query;
    const b = request('/apis/g/v1/r?').query;
    expect(a).toBe(b);
    expect(a.get('watch')).toBeNull();
    expect([...a.keys()]).toEqual([]);
    expect(a.toString()).toBe('');
    expect(() => a.append('watch', 'true')).toThrow(TypeError);
    expect(() => a.set('watch', 'true')).toThrow(TypeError);
    expect(() => a.delete('watch')).toThrow(TypeError);
    a.sort(); // sorting nothing changes nothing: allowed
    expect(a.toString()).toBe('');
    expect(a.has('watch')).toBe(false);
    // A request with a query of its own still has a changeable one, as before.
    const own = request('/apis/g/v1/r?a=1').query;
    own.append('b', '2');
    expect(own.toString()).toBe('a=1&b=2');
  });
});
