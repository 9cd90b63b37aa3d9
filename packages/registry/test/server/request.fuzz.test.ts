// The request path as a whole, through real HTTPS: query parameters, impersonation headers and
// every body the server decodes (objects in JSON and YAML, the three patch types, apply), each
// answered with a Status below 500 in bounded time, and the server still serving afterwards.
import fc from 'fast-check';
import { fuzzParameters, fuzzTimeoutMs } from '@plat/api-model/testing';
import { bundle, ctbPath, selfReviewAuthorizer, startCluster, type TestCluster, type TestResponse } from '../cluster.js';

let c: TestCluster;
beforeAll(async () => {
  c = await startCluster({ authorizer: selfReviewAuthorizer });
  expect((await c.req('writer', 'POST', ctbPath, { body: bundle('fuzz', c.anchorPem) })).status).toBe(201);
});
afterAll(async () => {
  await c.close();
});

function expectHandled(res: TestResponse, what: string): void {
  if (res.status >= 500) throw new Error(`${what}: ${res.status} ${res.text.slice(0, 300)}`);
  if (res.status >= 400) expect(res.json).toMatchObject({ kind: 'Status', code: res.status });
}

const soup = (pieces: string[]) => fc.array(fc.constantFrom(...pieces), { maxLength: 30 }).map((a) => a.join(''));
const queryValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  soup(['a', '=', '!', ',', 'in', '(', ')', ' ', 'metadata.name', 'spec.signerName', '\\', '-1', '0', '1', '9223372036854775808', 'true', 'maybe', '%', '%zz']),
);
const queryName = fc.constantFrom('labelSelector', 'fieldSelector', 'continue', 'resourceVersion', 'resourceVersionMatch', 'limit', 'timeoutSeconds', 'watch', 'allowWatchBookmarks', 'sendInitialEvents', 'pretty', 'includeObject', 'dryRun', 'fieldManager', 'fieldValidation', 'force', 'gracePeriodSeconds', 'propagationPolicy');

/** JSON and YAML bodies: objects close to a ClusterTrustBundle, arbitrary JSON, and text soups. */
const jsonBody = fc.oneof(
  fc.json({ maxDepth: 6 }),
  fc
    .record({ metadata: fc.dictionary(fc.constantFrom('name', 'labels', 'generation', 'managedFields', 'resourceVersion', 'annotations', 'finalizers'), fc.jsonValue({ maxDepth: 3 })), spec: fc.dictionary(fc.constantFrom('trustBundle', 'signerName', 'x'), fc.jsonValue({ maxDepth: 3 })) }, { requiredKeys: [] })
    .map((o) => JSON.stringify({ apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', ...o })),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map((n) => `{"metadata":{"name":"fuzz","generation":${n}},"spec":{"trustBundle":"x"}}`),
  soup(['{', '}', '[', ']', '"a"', ':', ',', '1', '9007199254740993', '1e400', 'null', '"metadata"', '"name"', ' ']),
);
const yamlBody = fc.oneof(
  jsonBody,
  soup(['a: ', 'b', '\n', '  ', '- ', '&x ', '*x', '[', ']', '{', '}', ', ', '!!str ', '? ', '|', '>', '#', '---\n', '.inf', '0x1F', '9223372036854775808']),
);

describe('request path (fuzz, HTTPS)', () => {
  it('answers any query parameters on list, watch, get, delete and deletecollection below 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET list', 'GET one', 'DELETE one', 'DELETE list'), fc.array(fc.tuple(queryName, queryValue), { maxLength: 4 }), async (op, params) => {
        const q = new URLSearchParams(params);
        // A watch that parses would stream until its timeout: keep it short.
        q.set('timeoutSeconds', '1');
        const [method, target] = op.split(' ');
        const path = `${ctbPath}${target === 'one' ? '/fuzz' : ''}?${q}`;
        // dryRun keeps the object for the next runs whatever the other parameters are.
        const res = await c.req('writer', method!, method === 'DELETE' ? `${path}&dryRun=All` : path);
        // A read at a resourceVersion the store has not reached waits for it, then answers
        // Kubernetes' 504 Too large resource version (the storage contract suite's "answers get at
        // a resourceVersion newer than the store with 504"; the cacher's waitUntilFreshAndBlock):
        // the one 5xx that is the answer, only for a query whose resourceVersion is such a number.
        const rv = q.get('resourceVersion') ?? '';
        if (res.status === 504 && /^[0-9]+$/.test(rv)) {
          expect(res.json).toMatchObject({ kind: 'Status', code: 504, reason: 'Timeout', details: { causes: [{ reason: 'ResourceVersionTooLarge' }] } });
          return;
        }
        expectHandled(res, `${method} ${path}`);
      }),
      fuzzParameters(150),
    );
  }, fuzzTimeoutMs(120_000));

  it('answers any impersonation headers below 500', async () => {
    const headerValue = fc.oneof(fc.string({ maxLength: 30 }).filter((s) => !/[\r\n\0]/.test(s) && /^[\x20-\x7e]*$/.test(s)), fc.constantFrom('', 'system:serviceaccount:team-a:sa', 'system:anonymous', 'a,b', '%20', '%zz'));
    const headerName = fc.constantFrom('Impersonate-User', 'Impersonate-Group', 'Impersonate-Uid', 'Impersonate-Extra-scopes', 'Impersonate-Extra-%41%zz', 'Impersonate-Extra-', 'Impersonate-Extra-a%2Fb');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(headerName, headerValue), { maxLength: 5 }), async (pairs) => {
        const headers: Record<string, string[]> = {};
        for (const [name, value] of pairs) (headers[name] ??= []).push(value);
        const res = await c.req('admin', 'GET', `${ctbPath}/fuzz`, { headers });
        expectHandled(res, `impersonation ${JSON.stringify(headers)}`);
      }),
      fuzzParameters(150),
    );
  }, fuzzTimeoutMs(120_000));

  it('answers any body to create, update, the three patches, apply and reviews below 500', async () => {
    const writes = fc.constantFrom(
      { method: 'POST', path: `${ctbPath}?dryRun=All`, type: 'application/json' },
      { method: 'POST', path: `${ctbPath}?dryRun=All&fieldValidation=Strict`, type: 'application/yaml' },
      { method: 'PUT', path: `${ctbPath}/fuzz?dryRun=All`, type: 'application/json' },
      { method: 'PUT', path: `${ctbPath}/fuzz?dryRun=All&fieldValidation=Warn`, type: 'application/yaml' },
      { method: 'PATCH', path: `${ctbPath}/fuzz?dryRun=All`, type: 'application/merge-patch+json' },
      { method: 'PATCH', path: `${ctbPath}/fuzz?dryRun=All&fieldValidation=Strict`, type: 'application/strategic-merge-patch+json' },
      { method: 'PATCH', path: `${ctbPath}/fuzz?dryRun=All`, type: 'application/json-patch+json' },
      { method: 'PATCH', path: `${ctbPath}/fuzz?dryRun=All&fieldManager=fuzz`, type: 'application/apply-patch+yaml' },
      { method: 'POST', path: '/apis/authentication.plat.io/v1/selfsubjectreviews', type: 'application/yaml' },
      // With a body, DeleteOptions come from it alone (the query's dryRun is ignored, as in
      // kube-apiserver): aim at a name that does not exist.
      { method: 'DELETE', path: `${ctbPath}/fuzz-absent`, type: 'application/json' },
    );
    const jsonPatch = fc
      .array(fc.record({ op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus'), path: fc.constantFrom('/spec/x', '/metadata/labels/a', '/metadata/generation', '/', '', '/spec/trustBundle', '/a/~2', '/metadata/managedFields/0'), from: fc.constantFrom('/spec', '/metadata'), value: fc.jsonValue({ maxDepth: 3 }) }, { requiredKeys: ['op'] }), { maxLength: 4 })
      .map((ops) => JSON.stringify(ops));
    await fc.assert(
      fc.asyncProperty(writes, fc.oneof(yamlBody, jsonPatch), async (w, body) => {
        const started = performance.now();
        const res = await c.req('writer', w.method, w.path, { raw: body, contentType: w.type });
        expectHandled(res, `${w.method} ${w.path} ${w.type} ${body.slice(0, 200)}`);
        expect(performance.now() - started).toBeLessThan(10_000);
      }),
      fuzzParameters(300),
    );
    expect((await c.req('reader', 'GET', `${ctbPath}/fuzz`)).status).toBe(200);
  }, fuzzTimeoutMs(180_000));
});
