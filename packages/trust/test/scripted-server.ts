import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { RestClient, type RestConfig } from '@plat/client';
import { createCertificateAuthority, issueServingCertificate, type PemKeyPair } from '@plat/x509';

/**
 * A real HTTPS server whose answers each test scripts, for the faults a real apiserver does not
 * produce on demand (410 in the middle of a watch, a watch closed at once, a stream that goes
 * silent, 403 on the first list). End-to-end behaviour against the real apiserver is tested in
 * apps/clientctl. Answers use Kubernetes' wire format.
 */
export interface ScriptedServer {
  url: string;
  /** Every request's method and URL (path and query), in order (only the current test's clients). */
  requests: { method: string; url: URL }[];
  /**
   * Starts a new test: clears `requests`, and from now on only clients made after this call are
   * answered by `handler` (a request a previous test's client sent just before being stopped gets
   * a 503 instead of being taken for this test's).
   */
  nextTest(): void;
  handler: (req: IncomingMessage, res: ServerResponse, url: URL) => void;
  client(over?: Partial<RestConfig>): RestClient;
  close(): Promise<void>;
}

export async function startScriptedServer(): Promise<ScriptedServer> {
  const ca = await createCertificateAuthority({ commonName: 'scripted-ca' });
  const serving = await issueServingCertificate(ca, { commonName: 'localhost', ipAddresses: ['127.0.0.1'] });
  const sockets = new Set<Socket>();
  const clients: RestClient[] = [];
  let generation = 0;
  const state: ScriptedServer = {
    url: '',
    requests: [],
    nextTest() {
      generation++;
      state.requests.length = 0;
    },
    handler: (_req, res) => sendStatus(res, 404, 'NotFound', 'not scripted'),
    client(over = {}) {
      const c = new RestClient({
        server: state.url,
        contextName: '',
        clusterName: '',
        userName: '',
        namespace: 'default',
        namespaceExplicit: false,
        ca: ca.certPem,
        insecureSkipTlsVerify: false,
        timeoutMs: 0,
        disableCompression: false,
        userAgent: `trust-test/${generation}`,
        ...over,
      });
      clients.push(c);
      return c;
    },
    close: async () => {
      // Sockets first: a client's graceful close would wait for a watch left open by a failed test.
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all(clients.map((c) => c.close()));
    },
  };
  const server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    if (req.headers['user-agent'] !== `trust-test/${generation}`) return sendStatus(res, 503, 'ServiceUnavailable', 'a client of an earlier test');
    const url = new URL(req.url ?? '/', 'https://localhost');
    state.requests.push({ method: req.method ?? '', url });
    state.handler(req, res, url);
  });
  server.on('secureConnection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

export function sendJson(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export function sendStatus(res: ServerResponse, code: number, reason: string, message: string): void {
  sendJson(res, code, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason, message, code });
}

export interface Bundle {
  name: string;
  resourceVersion: string;
  signerName?: string;
  labels?: Record<string, string>;
  pem: string;
}

export function bundleObject(b: Bundle) {
  return {
    apiVersion: 'certificates.plat.io/v1alpha1',
    kind: 'ClusterTrustBundle',
    metadata: { name: b.name, resourceVersion: b.resourceVersion, ...(b.labels ? { labels: b.labels } : {}) },
    spec: { ...(b.signerName ? { signerName: b.signerName } : {}), trustBundle: b.pem },
  };
}

export function sendList(res: ServerResponse, resourceVersion: string, bundles: Bundle[], cont?: string): void {
  sendJson(res, 200, {
    apiVersion: 'certificates.plat.io/v1alpha1',
    kind: 'ClusterTrustBundleList',
    metadata: { resourceVersion, ...(cont ? { continue: cont } : {}) },
    items: bundles.map(bundleObject),
  });
}

/** Starts a watch response; `send` writes one event line. */
export function openWatch(res: ServerResponse) {
  res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
  res.flushHeaders();
  return {
    send(type: string, object: unknown) {
      res.write(JSON.stringify({ type, object }) + '\n');
    },
    bundle(type: 'ADDED' | 'MODIFIED' | 'DELETED', b: Bundle) {
      this.send(type, bundleObject(b));
    },
    bookmark(resourceVersion: string) {
      this.send('BOOKMARK', { apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { resourceVersion } });
    },
    end() {
      res.end();
    },
  };
}

/** Three CAs for the tests, made once per file. */
export async function threeCas(): Promise<[PemKeyPair, PemKeyPair, PemKeyPair]> {
  return Promise.all([1, 2, 3].map((i) => createCertificateAuthority({ commonName: `trust-test-ca-${i}` }))) as Promise<[PemKeyPair, PemKeyPair, PemKeyPair]>;
}

/** Resolves once `predicate` holds (polled every 10 ms), or rejects after `timeoutMs`. */
export async function eventually(predicate: () => boolean, timeoutMs = 15_000): Promise<void> {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
