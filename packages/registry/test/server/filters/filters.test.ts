import { connect } from 'node:tls';
import { Agent, request } from 'undici';
import type { ApiObject, FieldError } from '@plat/api-model';
import { bundle, ctbPath, startCluster, type TestCluster } from '../../cluster.js';
import type { ResourceDefinition } from '@plat/server';
import { clusterTrustBundleResource } from '../../../src/index.js';

/**
 * Waits until `n` requests of `kind` hold the in-flight budget (the gauge admin reads; system:masters
 * is exempt from the budget), instead of sleeping and hoping a slow request got there first: on a
 * loaded machine its TLS handshake alone can outlast a fixed sleep.
 */
async function inFlight(c: TestCluster, kind: 'readOnly' | 'mutating', n: number): Promise<void> {
  const line = new RegExp(`^apiserver_current_inflight_requests\\{request_kind="${kind}"\\} ${n}$`, 'm');
  for (const end = Date.now() + 15_000; !line.test((await c.req('admin', 'GET', '/metrics')).text); ) {
    if (Date.now() > end) throw new Error(`${kind} in-flight requests did not reach ${n}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('authentication and authorization', () => {
  let c: TestCluster;
  beforeAll(async () => {
    c = await startCluster();
    await c.req('admin', 'POST', ctbPath, { body: bundle('seen', c.anchorPem) });
  });
  afterAll(async () => {
    await c.close();
  });

  it('answers 401 Unauthorized without credentials or with a bad token', async () => {
    const none = await c.req('anonymous', 'GET', ctbPath);
    expect(none.status).toBe(401);
    expect(none.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized', message: 'Unauthorized', code: 401 });
    const bad = await c.req('anonymous', 'GET', ctbPath, { headers: { authorization: 'Bearer wrong' } });
    expect(bad.status).toBe(401);
  });

  it('lets every authenticated user read, by certificate or by token', async () => {
    expect((await c.req('reader', 'GET', ctbPath)).status).toBe(200);
    expect((await c.req('token', 'GET', `${ctbPath}/seen`)).status).toBe(200);
  });

  it('answers 403 with Kubernetes wording for resource and non-resource requests', async () => {
    const res = await c.req('reader', 'POST', ctbPath, { body: bundle('nope', c.anchorPem) });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({
      reason: 'Forbidden',
      code: 403,
      message:
        'clustertrustbundles.certificates.plat.io is forbidden: User "reader" cannot create resource "clustertrustbundles" in API group "certificates.plat.io" at the cluster scope',
      details: { group: 'certificates.plat.io', kind: 'clustertrustbundles' },
    });
    const named = await c.req('reader', 'DELETE', `${ctbPath}/seen`);
    expect(named.json['message']).toBe(
      'clustertrustbundles.certificates.plat.io "seen" is forbidden: User "reader" cannot delete resource "clustertrustbundles" in API group "certificates.plat.io" at the cluster scope',
    );
    const path = await c.req('reader', 'POST', '/version', { body: {} });
    expect(path.status).toBe(403);
    expect(path.json['message']).toBe('forbidden: User "reader" cannot post path "/version"');
  });

  it('lets a namespace-scoped user read bundles by impersonating a service account', async () => {
    const direct = await c.req('nsUser', 'GET', ctbPath);
    expect(direct.status).toBe(403);
    const asSa = await c.req('nsUser', 'GET', ctbPath, { headers: { 'impersonate-user': 'system:serviceaccount:team-a:builder' } });
    expect(asSa.status).toBe(200);
    const otherNs = await c.req('nsUser', 'GET', ctbPath, { headers: { 'impersonate-user': 'system:serviceaccount:team-b:builder' } });
    expect(otherNs.status).toBe(403);
    expect(otherNs.json['message']).toBe(
      'serviceaccounts "builder" is forbidden: User "ns-user" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "team-b"',
    );
    const user = await c.req('nsUser', 'GET', ctbPath, { headers: { 'impersonate-user': 'bob' } });
    expect(user.status).toBe(403);
    expect(user.json['message']).toBe('users "bob" is forbidden: User "ns-user" cannot impersonate resource "users" in API group "" at the cluster scope');
  });

  it('runs the request as the impersonated user (admin acting as reader cannot write)', async () => {
    const res = await c.req('admin', 'POST', ctbPath, { body: bundle('as-reader', c.anchorPem), headers: { 'impersonate-user': 'reader' } });
    expect(res.status).toBe(403);
    expect(String(res.json['message'])).toContain('User "reader" cannot create');
  });

  it('answers 400 BadRequest for a group, uid or extra without Impersonate-User, in Kubernetes wording', async () => {
    const groupOnly = await c.req('admin', 'GET', ctbPath, { headers: { 'impersonate-group': 'x' } });
    expect(groupOnly.status).toBe(400);
    expect(groupOnly.json).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400, message: 'requested [{Group  x    }] without impersonating a user' });
    const uidOnly = await c.req('reader', 'GET', ctbPath, { headers: { 'impersonate-uid': 'u-1' } });
    expect(uidOnly.status).toBe(400);
    expect(uidOnly.json['message']).toBe('requested [{UID  u-1  authentication.plat.io/v1  }] without impersonating a user');
    const extraOnly = await c.req('reader', 'GET', ctbPath, { headers: { 'impersonate-extra-scopes': 'view' } });
    expect(extraOnly.status).toBe(400);
  });

  it('turns an authorizer failure into 500 and keeps serving', async () => {
    const res = await c.req('panic', 'GET', ctbPath);
    expect(res.status).toBe(500);
    expect(res.json['reason']).toBe('InternalError');
    expect((await c.req('reader', 'GET', ctbPath)).status).toBe(200);
  });

  it('serves HTTP/2 as well as HTTP/1.1', async () => {
    const h2 = new Agent({ allowH2: true, connect: { ca: c.ca.certPem, servername: 'localhost' } });
    const res = await request(`${c.url}/version`, { dispatcher: h2, headers: { authorization: 'Bearer token-of-tokenuser' } });
    expect(res.statusCode).toBe(200);
    expect(((await res.body.json()) as { major: string }).major).toBe('1');
    await h2.close();
  });

  it('serves HTTP/1.1 only with http2: false, also to clients offering h2', async () => {
    const h1 = await startCluster({ http2: false });
    const h2 = new Agent({ allowH2: true, connect: { ca: h1.ca.certPem, servername: 'localhost' } });
    const res = await request(`${h1.url}/version`, { dispatcher: h2, headers: { authorization: 'Bearer token-of-tokenuser' } });
    expect(res.statusCode).toBe(200);
    await res.body.text();
    expect((await h1.req('reader', 'GET', ctbPath)).status).toBe(200);
    await h2.close();
    await h1.close();
  });

  it('authenticates HTTP/2 streams by the connection client certificate, stream after stream', async () => {
    const writer = c.clientCertificate('writer');
    const h2 = new Agent({ allowH2: true, connect: { ca: c.ca.certPem, cert: writer.certPem, key: writer.keyPem, servername: 'localhost' } });
    for (const name of ['h2-one', 'h2-two']) {
      const res = await request(`${c.url}${ctbPath}`, {
        dispatcher: h2,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(bundle(name, c.anchorPem)),
      });
      expect(res.statusCode).toBe(201);
      await res.body.text();
    }
    const denied = await request(`${c.url}${ctbPath}/h2-one`, { dispatcher: h2, method: 'DELETE', headers: { 'impersonate-user': 'reader' } });
    expect(denied.statusCode).toBe(403);
    await denied.body.text();
    await h2.close();
  });
});

describe('limits', () => {
  let c: TestCluster;
  beforeAll(async () => {
    c = await startCluster({ limits: { maxRequestsInFlight: 1, maxMutatingRequestsInFlight: 1, requestTimeoutMs: 5000 } });
  });
  afterAll(async () => {
    await c.close();
  });

  it('answers 429 with Retry-After once the read-only budget is used, and not for watches', async () => {
    const watch = await request(`${c.url}${ctbPath}?watch=true&timeoutSeconds=2`, { dispatcher: c.agent('reader') });
    expect(watch.statusCode).toBe(200);
    expect((await c.req('reader', 'GET', ctbPath)).status).toBe(200);
    watch.body.destroy();
    const slow = c.req('slow', 'GET', ctbPath);
    await inFlight(c, 'readOnly', 1);
    const rejected = await c.req('reader', 'GET', ctbPath);
    expect(rejected.status).toBe(429);
    expect(rejected.headers['retry-after']).toBe('1');
    expect(rejected.json).toMatchObject({ reason: 'TooManyRequests', message: 'Too many requests, please try again later.', details: { retryAfterSeconds: 1 } });
    // The mutating budget is separate.
    expect((await c.req('writer', 'POST', ctbPath, { body: bundle('during', c.anchorPem) })).status).toBe(201);
    expect((await slow).status).toBe(200);
    expect((await c.req('reader', 'GET', ctbPath)).status).toBe(200);
    const dropped = await c.req('admin', 'GET', '/metrics');
    expect(dropped.text).toMatch(/apiserver_dropped_requests_total\{request_kind="readOnly"\} 1/);
  });

  it('answers 429 for mutating requests over their budget', async () => {
    const slow = c.req('slow', 'POST', ctbPath, { body: bundle('slow-write', c.anchorPem) });
    await inFlight(c, 'mutating', 1);
    const rejected = await c.req('writer', 'DELETE', `${ctbPath}/during`);
    expect(rejected.status).toBe(429);
    expect((await slow).status).toBe(201);
  });

  it('still answers health probes and system:masters when both budgets are used (exempt, as in Kubernetes)', async () => {
    const slowRead = c.req('slow', 'GET', ctbPath);
    const slowWrite = c.req('slow', 'POST', ctbPath, { body: bundle('slow-write-2', c.anchorPem) });
    await inFlight(c, 'readOnly', 1);
    await inFlight(c, 'mutating', 1);
    // The refusals first, while the slow requests (600 ms) surely hold both budgets.
    expect((await c.req('reader', 'GET', ctbPath)).status).toBe(429);
    expect((await c.req('writer', 'POST', ctbPath, { body: bundle('refused', c.anchorPem) })).status).toBe(429);
    // An admin acting as somebody else is that somebody for the budget too.
    expect((await c.req('admin', 'GET', ctbPath, { headers: { 'impersonate-user': 'reader' } })).status).toBe(429);
    for (const probe of ['/livez', '/readyz', '/healthz', '/readyz?verbose', '/livez/ping']) {
      const res = await c.req('reader', 'GET', probe);
      expect([probe, res.status]).toEqual([probe, 200]);
    }
    expect((await c.req('admin', 'GET', ctbPath)).status).toBe(200);
    expect((await c.req('admin', 'POST', ctbPath, { body: bundle('by-admin', c.anchorPem) })).status).toBe(201);
    expect((await slowRead).status).toBe(200);
    expect((await slowWrite).status).toBe(201);
  });

  it('answers 413 for bodies over 3 MiB', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 1, 'a');
    const res = await c.req('admin', 'POST', ctbPath, { raw: big, contentType: 'application/json' });
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ reason: 'RequestEntityTooLarge', message: 'Request entity too large: limit is 3145728' });
  });
});

describe('request timeout', () => {
  let c: TestCluster;
  beforeAll(async () => {
    c = await startCluster({ limits: { requestTimeoutMs: 300 } });
  });
  afterAll(async () => {
    await c.close();
  });

  it('answers 504 Timeout when a request takes longer than --request-timeout', async () => {
    const res = await c.req('slow', 'GET', ctbPath);
    expect(res.status).toBe(504);
    expect(res.json).toMatchObject({
      reason: 'Timeout',
      code: 504,
      message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
    });
    expect((await c.req('reader', 'GET', ctbPath)).status).toBe(200);
  });

  it('uses a shorter timeout query parameter and exempts watches', async () => {
    const started = Date.now();
    const res = await c.req('slow', 'GET', `${ctbPath}?timeout=100ms`);
    expect(res.status).toBe(504);
    expect(Date.now() - started).toBeLessThan(550);
    const watch = await request(`${c.url}${ctbPath}?watch=true&timeoutSeconds=1`, { dispatcher: c.agent('reader') });
    expect(watch.statusCode).toBe(200);
    const started2 = Date.now();
    await watch.body.text();
    expect(Date.now() - started2).toBeGreaterThanOrEqual(600);
  });

  // Kubernetes' timeout filter (staging/src/k8s.io/apiserver/pkg/server/filters/timeout.go,
  // TestTimeout): after the 504 the handler goes on, and what it writes then is dropped.
  it('answers one 504 and nothing else when the handler completes after its deadline, counted once, the connection kept', async () => {
    const timedOut = async () => {
      const lines = (await c.req('admin', 'GET', '/metrics')).text.split('\n');
      return lines.filter((l) => l.startsWith('apiserver_request_total{') && l.includes('code="504"')).reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
    };
    const before = await timedOut();
    const u = new URL(c.url);
    const socket = connect({ host: u.hostname, port: Number(u.port), ca: c.ca.certPem, servername: 'localhost' });
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    const statuses = () => [...received.matchAll(/^HTTP\/1\.1 (\d{3}) /gm)].map((m) => Number(m[1]));
    const until = async (n: number) => {
      for (const end = Date.now() + 15_000; statuses().length < n; await new Promise((r) => setTimeout(r, 10))) {
        if (Date.now() > end) throw new Error(`${n} responses did not arrive: ${JSON.stringify(received)}`);
      }
    };
    try {
      await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
      socket.write(`GET ${ctbPath} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer slow\r\n\r\n`);
      await until(1);
      expect(statuses()).toEqual([504]);
      // The slow authorizer answers at 600 ms and the GET handler then runs to its end.
      await new Promise((r) => setTimeout(r, 900));
      expect(statuses()).toEqual([504]);
      socket.write(`GET /version HTTP/1.1\r\nHost: localhost\r\n\r\n`);
      await until(2);
      expect(statuses()).toEqual([504, 401]);
    } finally {
      socket.destroy();
    }
    expect((await timedOut()) - before).toBe(1);
    expect((await c.req('admin', 'GET', '/metrics')).text).toMatch(/^apiserver_current_inflight_requests\{request_kind="readOnly"\} 0$/m);
  });
});

describe('panic recovery', () => {
  let c: TestCluster;
  beforeAll(async () => {
    const base = clusterTrustBundleResource();
    const broken: ResourceDefinition = {
      ...base,
      resource: 'brokenbundles',
      singular: 'brokenbundle',
      kind: 'BrokenBundle',
      listKind: 'BrokenBundleList',
      shortNames: [],
      definitionName: 'io.plat.api.certificates.v1alpha1.ClusterTrustBundle',
      strategy: {
        ...base.strategy,
        admit: undefined,
        allowCreateOnUpdate: true,
        allowUnconditionalUpdate: true,
        validate: (obj: ApiObject): FieldError[] => {
          if (obj.metadata?.name === 'explode') throw new TypeError('strategy exploded');
          return [];
        },
      },
    };
    c = await startCluster({ resources: [clusterTrustBundleResource(), broken] });
  });
  afterAll(async () => {
    await c.close();
  });

  it('answers 500 InternalError for a handler that throws, and keeps serving', async () => {
    const path = '/apis/certificates.plat.io/v1alpha1/brokenbundles';
    const res = await c.req('admin', 'POST', path, { body: { ...bundle('explode', c.anchorPem), kind: 'BrokenBundle' } });
    expect(res.status).toBe(500);
    expect(res.json).toMatchObject({ kind: 'Status', reason: 'InternalError', code: 500, message: 'Internal error occurred: strategy exploded' });
    expect((await c.req('admin', 'POST', path, { body: { ...bundle('fine', c.anchorPem), kind: 'BrokenBundle' } })).status).toBe(201);
    expect((await c.req('admin', 'GET', ctbPath)).status).toBe(200);
  });

  it('creates a missing object on PUT (201) and replaces it without resourceVersion for a resource whose strategy allows both', async () => {
    const path = '/apis/certificates.plat.io/v1alpha1/brokenbundles/upserted';
    const res = await c.req<{ metadata: { uid: string } }>('admin', 'PUT', path, { body: { ...bundle('upserted', c.anchorPem), kind: 'BrokenBundle' } });
    expect(res.status).toBe(201);
    expect(res.json.metadata.uid).toBeTruthy();
    const again = await c.req('admin', 'PUT', path, { body: { ...bundle('upserted', c.anchorPem), kind: 'BrokenBundle' } });
    expect(again.status).toBe(200);
  });
});

describe('request log', () => {
  it('writes one line per request at verbosity 2, rejected ones included', async () => {
    const lines: Array<{ message: string; fields: Record<string, unknown>; v: number }> = [];
    const c = await startCluster({ logger: { info: (message, fields, v) => lines.push({ message, fields, v }), error: () => undefined } });
    await c.req('reader', 'GET', `${ctbPath}?limit=1`, { headers: { 'user-agent': 'probe/1.0' } });
    await c.req('anonymous', 'GET', ctbPath);
    await c.close();
    const http = lines.filter((l) => l.message === 'HTTP');
    expect(http).toHaveLength(2);
    expect(http[0]).toMatchObject({
      v: 2,
      fields: { verb: 'GET', URI: `${ctbPath}?limit=1`, userAgent: 'probe/1.0', resp: 200, user: 'reader', audit_ID: expect.any(String) },
    });
    expect(http[0]!.fields['latency']).toMatch(/ms$/);
    expect(http[1]!.fields['resp']).toBe(401);
  });

  it('builds no request line when the logger says verbosity 2 is off', async () => {
    const lines: string[] = [];
    const c = await startCluster({ logger: { info: (message) => lines.push(message), error: () => undefined, enabled: (v) => v < 2 } });
    expect((await c.req('reader', 'GET', ctbPath)).status).toBe(200);
    await c.close();
    expect(lines).not.toContain('HTTP');
  });
});

describe('graceful shutdown', () => {
  it('ends HTTP/2 watches and sessions', async () => {
    const c = await startCluster();
    const h2 = new Agent({ allowH2: true, connect: { ca: c.ca.certPem, servername: 'localhost' } });
    const watch = await request(`${c.url}${ctbPath}?watch=true`, { dispatcher: h2, headers: { authorization: 'Bearer token-of-tokenuser' } });
    expect(watch.statusCode).toBe(200);
    const text = watch.body.text().catch((err: Error) => `error: ${err.message}`);
    const started = Date.now();
    await c.server.close();
    await expect(text).resolves.toBe('');
    expect(Date.now() - started).toBeLessThan(5000);
    await h2.close();
    await c.close();
  });

  it('fails /readyz, ends watches cleanly, finishes in-flight requests and refuses new connections', async () => {
    const c = await startCluster({ shutdownDelayMs: 300 });
    const watch = await request(`${c.url}${ctbPath}?watch=true`, { dispatcher: c.agent('reader') });
    const watchText = watch.body.text();
    const inflight = c.req('slow', 'GET', ctbPath);
    await inFlight(c, 'readOnly', 1);
    const closing = c.server.close();
    const ready = await c.req('admin', 'GET', '/readyz?verbose');
    expect(ready.status).toBe(500);
    expect(ready.text).toContain('[-]shutdown failed: reason withheld');
    expect((await inflight).status).toBe(200);
    await closing;
    await expect(watchText).resolves.toBe('');
    const fresh = new Agent({ connect: { ca: c.ca.certPem, servername: 'localhost' } });
    await expect(request(`${c.url}/version`, { dispatcher: fresh })).rejects.toThrow();
    await fresh.close();
    await c.close();
  });
});
