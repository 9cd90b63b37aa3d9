import fc from 'fast-check';
import { isStatusError } from '@plat/api-model';
import { decodeRequestPath, requestInfoFor, requestInfoMemoEntries, requestInfoMemoPathLength, requestInfoUnmemoised } from './request-info.js';

const info = (method: string, url: string) => {
  const u = new URL(url, 'https://h');
  return requestInfoFor(method, u.pathname, u.searchParams);
};

describe('requestInfoFor', () => {
  it.each([
    ['GET', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles', 'list', ''],
    ['GET', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles?watch=true', 'watch', ''],
    ['GET', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles?watch=1', 'watch', ''],
    ['GET', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles?watch=false', 'list', ''],
    // Kubernetes' parameter codec: only 0 and false (any case) are false; anything else is a watch.
    ['GET', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles?watch=FALSE', 'list', ''],
    ['GET', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles?watch=0', 'list', ''],
    ['GET', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles?watch=maybe', 'watch', ''],
    ['GET', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles?watch=', 'watch', ''],
    ['GET', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/a', 'get', 'a'],
    ['GET', '/apis/certificates.plat.io/v1alpha1/watch/clustertrustbundles/a', 'watch', 'a'],
    ['POST', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles', 'create', ''],
    ['PUT', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/a', 'update', 'a'],
    ['PATCH', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/a', 'patch', 'a'],
    ['DELETE', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/a', 'delete', 'a'],
    ['DELETE', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles', 'deletecollection', ''],
  ])('%s %s is a resource request with verb %s', (method, url, verb, name) => {
    const i = info(method, url);
    expect(i).toMatchObject({ isResourceRequest: true, verb, name, apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1', resource: 'clustertrustbundles' });
  });

  it('reads namespaces and subresources', () => {
    expect(info('GET', '/api/v1/namespaces/ns/pods/p/log')).toMatchObject({ namespace: 'ns', resource: 'pods', name: 'p', subresource: 'log', apiGroup: '' });
    expect(info('GET', '/apis/rbac.authorization.plat.io/v1/namespaces/ns/roles')).toMatchObject({ verb: 'list', namespace: 'ns', resource: 'roles', name: '' });
    expect(info('GET', '/apis/rbac.authorization.plat.io/v1/watch/namespaces/ns/roles/r')).toMatchObject({ verb: 'watch', namespace: 'ns', resource: 'roles', name: 'r' });
    expect(info('GET', '/apis/rbac.authorization.plat.io/v1/roles')).toMatchObject({ verb: 'list', namespace: '', resource: 'roles' });
  });

  it('reads a namespace\'s own path as Kubernetes does: the namespace is the object and the request\'s namespace', () => {
    expect(info('GET', '/api/v1/namespaces/a')).toMatchObject({ verb: 'get', namespace: 'a', resource: 'namespaces', name: 'a', subresource: '' });
    expect(info('PUT', '/api/v1/namespaces/a/finalize')).toMatchObject({ verb: 'update', namespace: 'a', resource: 'namespaces', name: 'a', subresource: 'finalize' });
    expect(info('GET', '/api/v1/namespaces/a/status')).toMatchObject({ namespace: 'a', resource: 'namespaces', name: 'a', subresource: 'status' });
    expect(info('GET', '/api/v1/namespaces')).toMatchObject({ verb: 'list', namespace: '', resource: 'namespaces' });
  });

  it('treats discovery and other paths as non-resource requests with the method as verb', () => {
    for (const path of ['/apis', '/apis/certificates.plat.io', '/apis/certificates.plat.io/v1alpha1', '/api', '/version', '/healthz']) {
      expect(info('GET', path)).toMatchObject({ isResourceRequest: false, verb: 'get', path });
    }
    expect(info('POST', '/version').verb).toBe('post');
  });

  it('decodes every segment once: a signer-prefixed name sent as client libraries encode it', () => {
    const i = info('PUT', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/example.com%3Afoo%3Ax');
    expect(i).toMatchObject({ verb: 'update', name: 'example.com:foo:x', path: '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/example.com:foo:x' });
    expect(info('GET', '/apis/certificates.plat.io/v1alpha1/%63lustertrustbundles').resource).toBe('clustertrustbundles');
    expect(info('GET', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/a%25253A').name).toBe('a%253A');
    expect(info('GET', '/%68ealthz')).toMatchObject({ isResourceRequest: false, path: '/healthz' });
  });

  it('splits at an encoded slash as at a literal one (Go decodes before kube splits): no name holds a slash', () => {
    const i = info('GET', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/a%2Fb');
    expect(i).toMatchObject({ verb: 'get', name: 'a', subresource: 'b' });
    expect(info('DELETE', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles%2Fa')).toMatchObject({ verb: 'delete', resource: 'clustertrustbundles', name: 'a' });
  });

  it('reads UTF-8 escapes as characters and invalid UTF-8 as U+FFFD', () => {
    expect(decodeRequestPath('/x/%C3%A9t%C3%A9')).toBe('/x/été');
    expect(decodeRequestPath('/x/%FF')).toBe('/x/\uFFFD');
  });

  it('answers a malformed escape with 400 in Go\'s words', () => {
    for (const [path, bad] of [['/apis/x/%zz', '%zz'], ['/a%2', '%2'], ['/a%', '%'], ['/a/%4g/b', '%4g']] as const) {
      let err: unknown;
      try {
        decodeRequestPath(path);
      } catch (e) {
        err = e;
      }
      expect(isStatusError(err, 'BadRequest')).toBe(true);
      expect((err as Error).message).toBe(`invalid URL escape ${JSON.stringify(bad)}`);
    }
  });

  // The segments are cut by hand (one pass, read by index); this is the split-and-slice reading
  // of Kubernetes' RequestInfoFactory (k8s.io/apiserver/pkg/endpoints/request/requestinfo.go) it
  // replaced, for any path of the segments that matter and empty ones.
  it('reads any path as split, filter and slice do (fast-check)', () => {
    const reference = (method: string, path: string) => {
      const segs = path.split('/').filter((x) => x !== '');
      if (segs[0] !== 'api' && segs[0] !== 'apis') return { isResourceRequest: false, parts: [] as string[] };
      let parts = segs.slice(1);
      let group = '';
      if (segs[0] === 'apis') {
        if (parts.length < 3) return { isResourceRequest: false, parts };
        group = parts[0]!;
        parts = parts.slice(1);
      } else if (parts.length < 2) return { isResourceRequest: false, parts };
      const version = parts[0]!;
      parts = parts.slice(1);
      let verb = ({ GET: 'get', POST: 'create', DELETE: 'delete' } as Record<string, string>)[method]!;
      if (parts[0] === 'watch' && parts.length > 1) {
        verb = 'watch';
        parts = parts.slice(1);
      }
      let namespace = '';
      if (parts[0] === 'namespaces' && parts.length > 1) {
        namespace = parts[1]!;
        if (parts.length > 2 && parts[2] !== 'status' && parts[2] !== 'finalize') parts = parts.slice(2);
      }
      const name = parts[1] ?? '';
      if (parts.length === 1 || name === '') verb = verb === 'get' ? 'list' : verb === 'delete' ? 'deletecollection' : verb;
      const resource = parts[0] ?? '';
      return { isResourceRequest: true, apiGroup: group, apiVersion: version, verb, namespace, resource, name, subresource: parts[2] ?? '', parts, resourceKey: `${group}/${version}/${resource}` };
    };
    const segment = fc.constantFrom('', 'api', 'apis', 'g.io', 'v1', 'v', 'watch', 'namespaces', 'ns', 'status', 'finalize', 'things', 'thing', 'a', 'b');
    fc.assert(
      fc.property(fc.constantFrom('GET', 'POST', 'DELETE'), fc.array(segment, { maxLength: 9 }), fc.boolean(), (method, segs, trailing) => {
        const path = `/${segs.join('/')}${trailing ? '/' : ''}`;
        expect(requestInfoFor(method, path, new URLSearchParams())).toMatchObject(reference(method, path));
      }),
      { numRuns: 2000 },
    );
  });
  // GET infos are remembered by raw path; the query's `watch` is applied on each request.
  it('answers from its memo what it answers without it, for any method, path and watch query (fast-check)', () => {
    const segment = fc.constantFrom('', 'api', 'apis', 'g.io', 'v1', 'watch', 'namespaces', 'ns', 'status', 'finalize', 'things', 'a', '%61', '%2F', 'x%3Ay', '%zz', 'healthz');
    const query = fc.constantFrom('', 'watch=true', 'watch=1', 'watch=false', 'watch=0', 'watch=', 'resourceVersion=5', 'watch=true&watch=false');
    const answer = (f: () => unknown) => {
      try {
        return f();
      } catch (err) {
        return { thrown: (err as Error).message };
      }
    };
    fc.assert(
      fc.property(fc.constantFrom('GET', 'HEAD', 'POST', 'DELETE', 'get'), fc.array(segment, { maxLength: 9 }), query, query, (method, segs, q1, q2) => {
        const path = `/${segs.join('/')}`;
        for (const q of [q1, q2, q1]) {
          const want = answer(() => requestInfoUnmemoised(method, path, new URLSearchParams(q)));
          const got = answer(() => requestInfoFor(method, path, new URLSearchParams(q)));
          expect(got).toEqual(want);
          if (!('thrown' in (got as object))) expect(Object.isFrozen(got) && Object.isFrozen((got as { parts: unknown }).parts)).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('answers a GET path from its memo, bounded in entries and path length', () => {
    const path = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/memo-a';
    const first = requestInfoFor('GET', path, new URLSearchParams());
    expect(requestInfoFor('GET', `${path}`, new URLSearchParams())).toBe(first);
    // A watch query gets its own info; the remembered one is unchanged.
    expect(requestInfoFor('GET', path, new URLSearchParams('watch=true')).verb).toBe('watch');
    expect(requestInfoFor('GET', path, new URLSearchParams()).verb).toBe('get');
    const long = `/apis/g.io/v1/things/${'n'.repeat(requestInfoMemoPathLength)}`;
    expect(requestInfoFor('GET', long, new URLSearchParams())).not.toBe(requestInfoFor('GET', long, new URLSearchParams()));
    // Past the bound the memo starts empty again: the first path's info is made anew.
    for (let i = 0; i < requestInfoMemoEntries; i++) requestInfoFor('GET', `/apis/g.io/v1/things/n${i}`, new URLSearchParams());
    const again = requestInfoFor('GET', path, new URLSearchParams());
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});
