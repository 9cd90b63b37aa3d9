import fs from 'node:fs';
import path from 'node:path';
import { startOtlpReceiver, type ReceivedSpan } from '@plat/telemetry/testing';
import { startServer, startWebhook, tempDir, webhookAuthorizationConfig, type WebhookCall } from '../test/auth-fixtures.js';

// The whole app in process: --tracing-config-file and an AuthorizationConfiguration with a webhook.
// The authorizer chain gets one span per authorizer, and the webhook receives the traceparent of
// its span: the wiring of @plat/control-plane's setupEgressTracing through buildAuthorization.

const ctbPath = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';

describe('apiserver tracing with a webhook authorizer (in process)', () => {
  it('spans each authorizer of the chain and sends the webhook span as traceparent', async () => {
    const dir = tempDir('plat-tracing-e2e-');
    const receiver = await startOtlpReceiver();
    const webhook = await startWebhook(dir, () => ({ allowed: true }));
    const tracingFile = path.join(dir, 'tracing.yaml');
    fs.writeFileSync(tracingFile, `apiVersion: apiserver.plat.io/v1beta1\nkind: TracingConfiguration\nendpoint: ${receiver.endpoint}\nsamplingRatePerMillion: 1000000\n`);
    const authzFile = path.join(dir, 'authz.yaml');
    fs.writeFileSync(authzFile, webhookAuthorizationConfig(webhook.configFile, { authorizedTTL: '1s', unauthorizedTTL: '1s', then: 'AlwaysDeny' }));
    const tokens = path.join(dir, 'tokens.csv');
    fs.writeFileSync(tokens, 'writer-token,writer,u1,"writers"\n');
    let spans: ReceivedSpan[] = [];
    let s: Awaited<ReturnType<typeof startServer>> | undefined;
    try {
      s = await startServer(path.join(dir, 'data'), [`--authorization-config=${authzFile}`, `--token-auth-file=${tokens}`, `--tracing-config-file=${tracingFile}`]);
      const pem = s.running.devPki!.ca.certPem;
      const res = await s.req({ token: 'writer-token' }, 'POST', ctbPath, {
        apiVersion: 'certificates.plat.io/v1alpha1',
        kind: 'ClusterTrustBundle',
        metadata: { name: 'example.com:one:traced' },
        spec: { signerName: 'example.com/one', trustBundle: pem },
      });
      expect(res.status).toBe(201);
    } finally {
      // Stopping flushes the batched spans.
      await s?.stop();
      spans = [...receiver.spans];
      await receiver.close();
      await webhook.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const root = spans.find((x) => x.name === `POST ${ctbPath}`)!;
    expect(root.attributes).toMatchObject({ 'apiserver.verb': 'create', 'http.response.status_code': 201 });
    const ofTrace = spans.filter((x) => x.traceId === root.traceId);
    const children = (p: ReceivedSpan) => ofTrace.filter((x) => x.parentSpanId === p.spanId);
    const authz = children(root).find((x) => x.name === 'authorization')!;
    expect(children(authz).map((x) => x.name)).toEqual(['authorizer Builtin/builtin', 'authorizer Webhook/policy']);
    const createCheck = children(authz).find((x) => x.name === 'authorizer Webhook/policy')!;
    const admission = children(root).find((x) => x.name === 'admission')!;
    const attestChecks = children(admission).flatMap((a) => children(a)).filter((x) => x.name === 'authorizer Webhook/policy');
    expect(attestChecks.length).toBeGreaterThan(0);
    // Every review the webhook got names the span of the authorizer call that sent it.
    const verb = (c: WebhookCall) => (c.spec.resourceAttributes as { verb?: string } | undefined)?.verb;
    const create = webhook.calls.find((c) => verb(c) === 'create');
    expect(create?.traceparent).toBe(`00-${root.traceId}-${createCheck.spanId}-01`);
    const attest = webhook.calls.filter((c) => verb(c) === 'attest').map((c) => c.traceparent);
    expect(attest.length).toBeGreaterThan(0);
    for (const tp of attest) expect(attestChecks.map((x) => `00-${root.traceId}-${x.spanId}-01`)).toContain(tp);
  });
});
