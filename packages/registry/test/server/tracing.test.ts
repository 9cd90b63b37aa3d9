import { randomBytes } from 'node:crypto';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createAuthorizerChain, WebhookAuthorizer, type Authorizer } from '@plat/auth';
import { createTracing, disabledTracing, type Tracing } from '@plat/telemetry';
import { createCertificateAuthority, issueServingCertificate } from '@plat/x509';
import { startOtlpReceiver, type ReceivedSpan } from '@plat/telemetry/testing';
import { bundle, ctbPath, startCluster, testAuthorizer, type TestCluster } from '../cluster.js';
import { requestInfoFor, routeTemplate, traceAuthorizer, traceHeadersInjector, type RequestContext } from '@plat/server';

type Receiver = Awaited<ReturnType<typeof startOtlpReceiver>>;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(() => receiver.close());

const sampledParent = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' };
const traceparent = (p: { traceId: string; spanId: string }, sampled: boolean) => `00-${p.traceId}-${p.spanId}-${sampled ? '01' : '00'}`;

async function tracingAt(samplingRatePerMillion: number | undefined): Promise<Tracing> {
  return createTracing({ endpoint: receiver.endpoint, samplingRatePerMillion }, { serviceVersion: '0.1.0', instanceId: 'tracing-test', exportDelayMs: 10 });
}

/** Flushes until a span with the audit id arrives (spans end just after the response is sent). */
async function spansOf(tracing: Tracing, auditId: string, expectSome = true): Promise<ReceivedSpan[]> {
  const deadline = Date.now() + (expectSome ? 15_000 : 300);
  for (;;) {
    await tracing.forceFlush();
    const root = receiver.spans.find((s) => s.attributes['apiserver.audit_id'] === auditId);
    if (root) {
      const all = receiver.spans.filter((s) => s.traceId === root.traceId);
      return all;
    }
    if (Date.now() > deadline) return [];
    await new Promise((r) => setTimeout(r, 20));
  }
}

function childrenOf(spans: ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] {
  return spans.filter((s) => s.parentSpanId === parent.spanId);
}

describe('request tracing', () => {
  let cluster: TestCluster;
  let tracing: Tracing;

  beforeAll(async () => {
    tracing = await tracingAt(1_000_000);
    cluster = await startCluster({ tracing });
  });
  afterAll(async () => {
    await cluster.close();
    await tracing.shutdown();
  });

  it('traces a GET without creating its AbortSignal (Node 20 promotes every one to the old generation)', async () => {
    expect((await cluster.req('admin', 'POST', ctbPath, { body: bundle('traced-no-signal', cluster.anchorPem) })).status).toBe(201);
    const Original = globalThis.AbortController;
    let created = 0;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        created++;
      }
    };
    try {
      const res = await cluster.req('reader', 'GET', `${ctbPath}/traced-no-signal`);
      expect(res.status).toBe(200);
      const spans = await spansOf(tracing, String(res.headers['audit-id']));
      const root = spans.find((s) => s.parentSpanId === '')!;
      expect(childrenOf(spans, root).map((s) => s.name)).toContain('storage.get');
      expect(created).toBe(0);
      // The count does see signals: a create passes the request's signal to storage.
      expect((await cluster.req('admin', 'POST', ctbPath, { body: bundle('traced-signal', cluster.anchorPem) })).status).toBe(201);
      expect(created).toBeGreaterThan(0);
    } finally {
      globalThis.AbortController = Original;
    }
  });

  it('exports one span per request with method, route template, resource, verb, user agent and status code', async () => {
    expect((await cluster.req('admin', 'POST', ctbPath, { body: bundle('traced-one', cluster.anchorPem) })).status).toBe(201);
    const res = await cluster.req('reader', 'GET', `${ctbPath}/traced-one`, { headers: { 'user-agent': 'tracing-test/1.0' } });
    expect(res.status).toBe(200);
    const spans = await spansOf(tracing, String(res.headers['audit-id']));
    const root = spans.find((s) => s.parentSpanId === '')!;
    expect(root).toBeDefined();
    expect(root.name).toBe('GET /apis/certificates.plat.io/v1alpha1/clustertrustbundles/{name}');
    expect(root.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/{name}',
      'user_agent.original': 'tracing-test/1.0',
      'http.response.status_code': 200,
      'apiserver.verb': 'get',
      'apiserver.resource': 'clustertrustbundles',
    });
    expect(root.resource).toMatchObject({ 'service.name': 'apiserver', 'service.version': '0.1.0' });
    const names = childrenOf(spans, root).map((s) => s.name).sort();
    expect(names).toEqual(['authentication', 'authorization', 'storage.get']);
    const authz = childrenOf(spans, root).find((s) => s.name === 'authorization')!;
    expect(authz.attributes).toMatchObject({ 'authorization.verb': 'get', 'authorization.decision': 'Allow' });
    const get = childrenOf(spans, root).find((s) => s.name === 'storage.get')!;
    expect(get.attributes).toEqual({ 'storage.type': 'clustertrustbundles.certificates.plat.io' });
  });

  it('nests admission (with its attest authorization) and storage under a create, and records 4xx status codes', async () => {
    const created = await cluster.req('attester', 'POST', ctbPath, {
      body: bundle('example.com:signer:traced', cluster.anchorPem, 'example.com/signer'),
    });
    expect(created.status).toBe(201);
    const spans = await spansOf(tracing, String(created.headers['audit-id']));
    const root = spans.find((s) => s.parentSpanId === '')!;
    expect(root.attributes).toMatchObject({ 'apiserver.verb': 'create', 'http.response.status_code': 201 });
    const children = childrenOf(spans, root);
    expect(children.map((s) => s.name)).toEqual(expect.arrayContaining(['authentication', 'authorization', 'admission', 'storage.create']));
    const admission = children.find((s) => s.name === 'admission')!;
    expect(admission.attributes).toMatchObject({ 'admission.operation': 'CREATE' });
    // ClusterTrustBundleAttest asks for the signer by name, then for <domain>/*: one span per check.
    const checks = childrenOf(spans, admission).filter((s) => s.name === 'authorization');
    expect(checks.length).toBeGreaterThan(0);
    for (const c of checks) expect(c.attributes).toMatchObject({ 'authorization.verb': 'attest', 'authorization.resource': 'signers' });
    expect(checks.map((c) => c.attributes['authorization.decision'])).toContain('Allow');

    const missing = await cluster.req('reader', 'GET', `${ctbPath}/does-not-exist`);
    expect(missing.status).toBe(404);
    const [root404] = (await spansOf(tracing, String(missing.headers['audit-id']))).filter((s) => s.parentSpanId === '');
    expect(root404?.attributes['http.response.status_code']).toBe(404);
  });

  it('spans rejected requests too (401 without storage calls)', async () => {
    const res = await cluster.req('anonymous', 'GET', ctbPath);
    expect(res.status).toBe(401);
    const spans = await spansOf(tracing, String(res.headers['audit-id']));
    const root = spans.find((s) => s.parentSpanId === '')!;
    expect(root.name).toBe('GET /apis/certificates.plat.io/v1alpha1/clustertrustbundles');
    expect(root.attributes).toMatchObject({ 'http.response.status_code': 401, 'apiserver.verb': 'list' });
    expect(childrenOf(spans, root).map((s) => s.name)).toEqual(['authentication']);
  });

  it('continues an incoming traceparent: the request span is a child of the remote span', async () => {
    const res = await cluster.req('reader', 'GET', '/version', { headers: { traceparent: traceparent(sampledParent, true) } });
    expect(res.status).toBe(200);
    const spans = await spansOf(tracing, String(res.headers['audit-id']));
    const root = spans.find((s) => s.attributes['apiserver.audit_id'] === res.headers['audit-id'])!;
    expect(root).toMatchObject({ traceId: sampledParent.traceId, parentSpanId: sampledParent.spanId, name: 'GET /version' });
  });

  it('does not record under an unsampled parent even at 1,000,000 per million', async () => {
    const parent = { traceId: '1af7651916cd43dd8448eb211c80319c', spanId: 'c7ad6b7169203331' };
    const res = await cluster.req('reader', 'GET', '/version', { headers: { traceparent: traceparent(parent, false) } });
    expect(res.status).toBe(200);
    expect(await spansOf(tracing, String(res.headers['audit-id']), false)).toEqual([]);
  });
});

describe('sampling', () => {
  const cases: { rate: number | undefined; root: boolean; sampledParent: boolean }[] = [
    { rate: 0, root: false, sampledParent: true },
    { rate: 1_000_000, root: true, sampledParent: true },
    { rate: undefined, root: false, sampledParent: true },
  ];
  it.each(cases)('samplingRatePerMillion=$rate: root requests sampled: $root; under a sampled parent: $sampledParent', async ({ rate, root, sampledParent: parented }) => {
    const tracing = await tracingAt(rate);
    const cluster = await startCluster({ tracing });
    try {
      const plain = await cluster.req('reader', 'GET', ctbPath);
      expect(plain.status).toBe(200);
      const parent = { traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex') };
      const withParent = await cluster.req('reader', 'GET', ctbPath, { headers: { traceparent: traceparent(parent, true) } });
      expect(withParent.status).toBe(200);
      const parentedSpans = await spansOf(tracing, String(withParent.headers['audit-id']), parented);
      const plainSpans = await spansOf(tracing, String(plain.headers['audit-id']), root);
      expect(plainSpans.length > 0).toBe(root);
      expect(parentedSpans.length > 0).toBe(parented);
      if (parented) {
        const top = parentedSpans.find((s) => s.attributes['apiserver.audit_id'] === withParent.headers['audit-id'])!;
        expect(top).toMatchObject({ traceId: parent.traceId, parentSpanId: parent.spanId });
        // The children are recorded under the kept trace too.
        expect(childrenOf(parentedSpans, top).map((s) => s.name).sort()).toEqual(['authentication', 'authorization', 'storage.list']);
      }
    } finally {
      await cluster.close();
      await tracing.shutdown();
    }
  });
});

describe('webhook authorizer calls', () => {
  it('run inside a per-authorizer span and carry its traceparent to the webhook', async () => {
    const ca = await createCertificateAuthority({ commonName: 'webhook-ca' });
    const serving = await issueServingCertificate(ca, { commonName: 'webhook', ipAddresses: ['127.0.0.1'] });
    const seen: (string | undefined)[] = [];
    const webhook = https.createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
      seen.push(req.headers.traceparent as string | undefined);
      req.resume();
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ apiVersion: 'authorization.plat.io/v1', kind: 'SubjectAccessReview', status: { allowed: true } }));
      });
    });
    webhook.listen(0, '127.0.0.1');
    await new Promise((r) => webhook.once('listening', r));
    const tracing = await tracingAt(1_000_000);
    const spec = {
      name: 'corp',
      timeoutMs: 2000,
      authorizedTTLMs: 0,
      unauthorizedTTLMs: 0,
      subjectAccessReviewVersion: 'v1' as const,
      failurePolicy: 'NoOpinion' as const,
      matchConditions: [{ expression: "request.user == 'writer'" }],
    };
    const wh = new WebhookAuthorizer(
      spec,
      { server: `https://127.0.0.1:${(webhook.address() as AddressInfo).port}/authorize`, ca: ca.certPem },
      { injectHeaders: traceHeadersInjector(tracing) },
    );
    const chain: Authorizer = createAuthorizerChain([
      { name: 'corp', authorizer: traceAuthorizer(tracing, 'Webhook', 'corp', wh) },
      { name: 'rules', authorizer: traceAuthorizer(tracing, 'Rules', 'rules', testAuthorizer) },
    ]);
    const cluster = await startCluster({ tracing, authorizer: chain });
    try {
      const res = await cluster.req('writer', 'GET', ctbPath);
      expect(res.status).toBe(200);
      expect(seen).toHaveLength(1);
      const spans = await spansOf(tracing, String(res.headers['audit-id']));
      const root = spans.find((s) => s.parentSpanId === '')!;
      const authz = childrenOf(spans, root).find((s) => s.name === 'authorization')!;
      const perAuthorizer = childrenOf(spans, authz);
      const webhookSpan = perAuthorizer.find((s) => s.name === 'authorizer Webhook/corp')!;
      expect(webhookSpan.attributes).toMatchObject({ 'authorizer.type': 'Webhook', 'authorizer.name': 'corp', 'authorization.decision': 'Allow' });
      // The webhook was told the trace and the span that called it.
      expect(seen[0]).toBe(`00-${root.traceId}-${webhookSpan.spanId}-01`);
    } finally {
      await cluster.close();
      await wh.close();
      await tracing.shutdown();
      await new Promise((r) => webhook.close(r));
    }
  });
});

describe('failures and tracing off', () => {
  it('answers requests when the collector is unreachable; the export error is reported, not thrown', async () => {
    const errors: Error[] = [];
    // A port nothing listens on: the receiver's, after closing a second receiver.
    const gone = await startOtlpReceiver();
    await gone.close();
    const tracing = await createTracing(
      { endpoint: gone.endpoint, samplingRatePerMillion: 1_000_000 },
      { serviceVersion: '0.1.0', instanceId: 'down', exportDelayMs: 10, onExportError: (e) => errors.push(e) },
    );
    const cluster = await startCluster({ tracing });
    try {
      for (let i = 0; i < 3; i++) expect((await cluster.req('reader', 'GET', ctbPath)).status).toBe(200);
      await tracing.forceFlush();
      const deadline = Date.now() + 15_000;
      while (errors.length === 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        await tracing.forceFlush();
      }
      expect(errors.length).toBeGreaterThan(0);
      expect((await cluster.req('reader', 'GET', ctbPath)).status).toBe(200);
    } finally {
      await cluster.close();
      await tracing.shutdown();
    }
  });

  it('with disabledTracing() serves requests, installs no wrappers and exports nothing', async () => {
    const before = receiver.spans.length;
    const cluster = await startCluster({ tracing: disabledTracing() });
    try {
      const res = await cluster.req('reader', 'GET', ctbPath, { headers: { traceparent: traceparent(sampledParent, true) } });
      expect(res.status).toBe(200);
      expect(traceHeadersInjector(disabledTracing())).toBeInstanceOf(Function);
      const headers: Record<string, string> = {};
      traceHeadersInjector(disabledTracing())(headers);
      expect(headers).toEqual({});
      expect(traceAuthorizer(disabledTracing(), 'Webhook', 'x', testAuthorizer)).toBe(testAuthorizer);
      await new Promise((r) => setTimeout(r, 100));
      expect(receiver.spans.length).toBe(before);
    } finally {
      await cluster.close();
    }
  });
});

describe('routeTemplate', () => {
  const route = (method: string, path: string) => {
    const url = new URL(path, 'https://localhost');
    return routeTemplate({ method, url, path: url.pathname, info: requestInfoFor(method, url.pathname, url.searchParams) } as RequestContext);
  };
  it.each([
    ['GET', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles'],
    ['DELETE', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/x', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/{name}'],
    ['GET', '/apis/certificates.plat.io/v1alpha1/watch/clustertrustbundles/x', '/apis/certificates.plat.io/v1alpha1/watch/clustertrustbundles/{name}'],
    ['GET', '/apis', '/apis'],
    ['GET', '/apis/certificates.plat.io/v1alpha1', '/apis/certificates.plat.io/v1alpha1'],
    ['GET', '/openapi/v3/apis/certificates.plat.io/v1alpha1', '/openapi/v3/{groupVersion}'],
    ['GET', '/openapi/v2', '/openapi/v2'],
    ['GET', '/readyz/storage', '/readyz/{check}'],
    ['GET', '/version', '/version'],
    ['GET', '/no/such/thing/1234', '/{path}'],
  ])('%s %s → %s', (method, path, expected) => {
    expect(route(method, path)).toBe(expected);
  });
});

describe('tracing wrappers without traced requests', () => {
  it('do not read the signal of a call (the server would create it just for that)', async () => {
    const tracing = await tracingAt(0);
    try {
      let reads = 0;
      const signal = new AbortController().signal;
      const carrier = {
        get signal() {
          reads++;
          return signal;
        },
      };
      const inner: Authorizer = { authorize: async () => ({ decision: 'Allow', reason: '' }) };
      const wrapped = traceAuthorizer(tracing, 'Builtin', 'builtin', inner);
      expect((await wrapped.authorize({ user: { username: 'u', groups: [] }, verb: 'get', resourceRequest: false, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '', path: '/version' }, carrier)).decision).toBe('Allow');
      expect(reads).toBe(0);
    } finally {
      await tracing.shutdown();
    }
  });
});
