import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { Registry } from 'prom-client';
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate, type PemKeyPair } from '@plat/x509';
import { createBufferedBackend, defaultWebhookBatchConfig } from './buffered-backend.js';
import type { AuditEvent } from './event.js';
import { createAuditMetrics } from './metrics.js';
import { createWebhookBackend, type AuditWebhookConnection } from './webhook-backend.js';

function event(i: number): AuditEvent {
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    auditID: `id-${i}`,
    stage: 'ResponseComplete',
    requestURI: '/apis/certificates.plat.io/v1alpha1/clustertrustbundles',
    verb: 'create',
    user: { username: 'writer' },
    requestReceivedTimestamp: '2026-01-02T03:04:05.000000Z',
    stageTimestamp: '2026-01-02T03:04:05.000001Z',
  };
}

interface Receiver {
  port: number;
  lists: { kind: string; apiVersion: string; items: AuditEvent[]; clientCN: string; authorization?: string }[];
  /** What the receiver answers (200 by default). */
  status: number;
  /** Milliseconds before answering. */
  delayMs: number;
  close(): Promise<void>;
}

let ca: PemKeyPair;
let serving: PemKeyPair;
let client: PemKeyPair;
beforeAll(async () => {
  ca = await createCertificateAuthority({ commonName: 'audit-webhook-ca' });
  serving = await issueServingCertificate(ca, { commonName: 'receiver', ipAddresses: ['127.0.0.1'] });
  client = await issueClientCertificate(ca, { commonName: 'apiserver' });
});

/** A real HTTPS audit receiver that requires the apiserver's client certificate. */
async function startReceiver(port = 0): Promise<Receiver> {
  const r: Receiver = { port: 0, lists: [], status: 200, delayMs: 0, close: async () => undefined };
  const server = https.createServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      setTimeout(() => {
        if (r.status === 200) {
          r.lists.push({ ...JSON.parse(body), clientCN: String((req.socket as TLSSocket).getPeerCertificate().subject?.CN), authorization: req.headers.authorization });
        }
        res.statusCode = r.status;
        res.end('{}');
      }, r.delayMs);
    });
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  r.port = (server.address() as AddressInfo).port;
  r.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return r;
}

function connection(port: number): AuditWebhookConnection {
  return { server: `https://127.0.0.1:${port}/audit`, ca: ca.certPem, cert: client.certPem, key: client.keyPem };
}

describe('webhook backend', () => {
  it('POSTs an audit.k8s.io/v1 EventList over TLS with the client certificate', async () => {
    const receiver = await startReceiver();
    const webhook = createWebhookBackend({ connection: connection(receiver.port), metrics: createAuditMetrics(new Registry()) });
    expect(await webhook.processEvents([event(1), event(2)])).toBe(true);
    await webhook.shutdown();
    await receiver.close();
    expect(receiver.lists).toEqual([{ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', metadata: {}, items: [event(1), event(2)], clientCN: 'apiserver', authorization: undefined }]);
  });

  it('retries a 5xx with backoff and counts what still fails', async () => {
    const receiver = await startReceiver();
    receiver.status = 503;
    const registry = new Registry();
    const webhook = createWebhookBackend({ connection: connection(receiver.port), initialBackoffMs: 5, metrics: createAuditMetrics(registry) });
    expect(await webhook.processEvents([event(1), event(2), event(3)])).toBe(false);
    expect(await registry.metrics()).toMatch(/^apiserver_audit_error_total\{plugin="webhook"\} 3$/m);
    // A receiver that recovers between retries gets the batch.
    receiver.status = 503;
    setTimeout(() => (receiver.status = 200), 20);
    expect(await createWebhookBackend({ connection: connection(receiver.port), initialBackoffMs: 50, metrics: createAuditMetrics(registry) }).processEvents([event(4)])).toBe(true);
    expect(receiver.lists.flatMap((l) => l.items.map((e) => e.auditID))).toEqual(['id-4']);
    await webhook.shutdown();
    await receiver.close();
  });

  it('in batch mode never makes a request wait, drops what the buffer cannot hold, and delivers events after the receiver is back', async () => {
    const first = await startReceiver();
    const port = first.port;
    await first.close(); // the webhook is down
    const registry = new Registry();
    const metrics = createAuditMetrics(registry);
    const webhook = createWebhookBackend({ connection: connection(port), initialBackoffMs: 10, metrics });
    const buffered = createBufferedBackend(webhook, { ...defaultWebhookBatchConfig, bufferSize: 50, maxBatchSize: 20, maxBatchWaitMs: 20 }, metrics);
    // Synchronous answers (true, not a promise to wait for): a down webhook costs the request nothing.
    const answers = Array.from({ length: 100 }, (_, i) => buffered.processEvents([event(i)]));
    expect(answers.every((a) => a === true)).toBe(true);
    const text = await registry.metrics();
    expect(text).toMatch(/^apiserver_audit_error_total\{plugin="buffered"\} 50$/m);
    // The buffered events fail at the webhook (after its retries) and are counted there.
    await waitFor(async () => /apiserver_audit_error_total\{plugin="webhook"\} 50$/m.test(await registry.metrics()), 15_000);

    const back = await startReceiver(port);
    for (let i = 100; i < 130; i++) buffered.processEvents([event(i)]);
    await waitFor(() => back.lists.flatMap((l) => l.items).length === 30, 15_000);
    expect(back.lists.flatMap((l) => l.items.map((e) => e.auditID))).toEqual(Array.from({ length: 30 }, (_, i) => `id-${100 + i}`));
    expect(back.lists.every((l) => l.items.length <= 20)).toBe(true);
    await buffered.shutdown();
    await back.close();
  }, 40_000);

  it('does not retry a 4xx other than 429', async () => {
    const receiver = await startReceiver();
    receiver.status = 400;
    const webhook = createWebhookBackend({ connection: connection(receiver.port), initialBackoffMs: 60_000, metrics: createAuditMetrics(new Registry()) });
    const started = performance.now();
    expect(await webhook.processEvents([event(1)])).toBe(false);
    expect(performance.now() - started).toBeLessThan(5_000);
    await webhook.shutdown();
    await receiver.close();
  });

  it('sends what is buffered on shutdown', async () => {
    const receiver = await startReceiver();
    const metrics = createAuditMetrics(new Registry());
    const buffered = createBufferedBackend(createWebhookBackend({ connection: connection(receiver.port), metrics }), defaultWebhookBatchConfig, metrics);
    buffered.processEvents([event(1)]);
    buffered.processEvents([event(2)]);
    // 30 s max wait: only shutdown sends these now.
    await buffered.shutdown();
    expect(receiver.lists.flatMap((l) => l.items.map((e) => e.auditID))).toEqual(['id-1', 'id-2']);
    await receiver.close();
  });

  it('sends a bearer token from the connection when there is one', async () => {
    const receiver = await startReceiver();
    const webhook = createWebhookBackend({ connection: { ...connection(receiver.port), token: 'receiver-token' }, metrics: createAuditMetrics(new Registry()) });
    await webhook.processEvents([event(1)]);
    await webhook.shutdown();
    await receiver.close();
    expect(receiver.lists[0]!.authorization).toBe('Bearer receiver-token');
  });
});

async function waitFor(probe: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

