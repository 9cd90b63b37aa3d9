import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate } from '@plat/x509';
// The OTLP receiver is @plat/telemetry's test fixture, shared by path rather than copied.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startOtlpReceiver, type ReceivedSpan } from '../../../packages/telemetry/test/otlp-receiver.js';
import { startServer, tempDir } from '../test/auth-fixtures.js';

// The whole app in process: --tracing-config-file and an AuthorizationConfiguration with a webhook.
// The authorizer chain gets one span per authorizer, and the webhook receives the traceparent of
// its span: the wiring of egress-tracing-setup.ts through authorization-setup.ts.

const ctbPath = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';

async function startTracingWebhook(dir: string) {
  const ca = await createCertificateAuthority({ commonName: 'tracing-webhook-ca' });
  const serving = await issueServingCertificate(ca, { commonName: 'webhook', ipAddresses: ['127.0.0.1'] });
  const client = await issueClientCertificate(ca, { commonName: 'apiserver' });
  const calls: { verb: string; resource: string; traceparent?: string }[] = [];
  const server = https.createServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const review = JSON.parse(body) as { apiVersion: string; spec: { resourceAttributes?: { verb: string; resource: string } } };
      const attrs = review.spec.resourceAttributes ?? { verb: '', resource: '' };
      calls.push({ verb: attrs.verb, resource: attrs.resource, traceparent: req.headers.traceparent as string | undefined });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'SubjectAccessReview', status: { allowed: true } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const configFile = path.join(dir, 'webhook.conf');
  fs.writeFileSync(
    configFile,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: webhook',
      `  cluster: {server: "https://127.0.0.1:${(server.address() as AddressInfo).port}/authorize", certificate-authority-data: ${b64(ca.certPem)}}`,
      'users:',
      `- name: apiserver`,
      `  user: {client-certificate-data: ${b64(client.certPem)}, client-key-data: ${b64(client.keyPem)}}`,
      'contexts:',
      '- name: webhook',
      '  context: {cluster: webhook, user: apiserver}',
      'current-context: webhook',
      '',
    ].join('\n'),
  );
  return {
    configFile,
    calls,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('apiserver tracing with a webhook authorizer (in process)', () => {
  it('spans each authorizer of the chain and sends the webhook span as traceparent', async () => {
    const dir = tempDir('plat-tracing-e2e-');
    const receiver = await startOtlpReceiver();
    const webhook = await startTracingWebhook(dir);
    const tracingFile = path.join(dir, 'tracing.yaml');
    fs.writeFileSync(tracingFile, `apiVersion: apiserver.plat.io/v1beta1\nkind: TracingConfiguration\nendpoint: ${receiver.endpoint}\nsamplingRatePerMillion: 1000000\n`);
    const authzFile = path.join(dir, 'authz.yaml');
    fs.writeFileSync(
      authzFile,
      [
        'apiVersion: apiserver.plat.io/v1beta1',
        'kind: AuthorizationConfiguration',
        'authorizers:',
        '- type: Webhook',
        '  name: policy',
        '  webhook:',
        '    timeout: 3s',
        '    authorizedTTL: 1s',
        '    unauthorizedTTL: 1s',
        '    subjectAccessReviewVersion: v1',
        '    matchConditionSubjectAccessReviewVersion: v1',
        '    failurePolicy: Deny',
        '    connectionInfo:',
        '      type: PlatConfig',
        `      platConfigFile: ${webhook.configFile}`,
        '- type: AlwaysDeny',
        '  name: alwaysdeny',
        '',
      ].join('\n'),
    );
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
    const create = webhook.calls.find((c) => c.verb === 'create');
    expect(create?.traceparent).toBe(`00-${root.traceId}-${createCheck.spanId}-01`);
    const attest = webhook.calls.filter((c) => c.verb === 'attest').map((c) => c.traceparent);
    expect(attest.length).toBeGreaterThan(0);
    for (const tp of attest) expect(attestChecks.map((x) => `00-${root.traceId}-${x.spanId}-01`)).toContain(tp);
  });
});
