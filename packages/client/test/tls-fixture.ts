import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { RestConfig } from '../src/rest-config.js';

export interface Pki {
  dir: string;
  caFile: string;
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCertFile: string;
  clientKeyFile: string;
}

/** A real CA, a serving certificate for 127.0.0.1/localhost and a client certificate, made with openssl. */
export function makePki(): Pki {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plat-client-pki-'));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=test-ca');
  writeFileSync(path.join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:api.example.test\nextendedKeyUsage=serverAuth\n');
  run('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=server');
  run('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '2', '-extfile', 'server.ext');
  writeFileSync(path.join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  run('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'client.key', '-out', 'client.csr', '-subj', '/CN=alice/O=team-a');
  run('x509', '-req', '-in', 'client.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'client.crt', '-days', '2', '-extfile', 'client.ext');
  const read = (f: string) => readFileSync(path.join(dir, f), 'utf8');
  return {
    dir,
    caFile: path.join(dir, 'ca.crt'),
    ca: read('ca.crt'),
    serverCert: read('server.crt'),
    serverKey: read('server.key'),
    clientCertFile: path.join(dir, 'client.crt'),
    clientKeyFile: path.join(dir, 'client.key'),
  };
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  remotePort: number;
  clientCN?: string;
}

export interface TestServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** A real HTTPS server on 127.0.0.1:0 that records requests and answers through `handler`. */
export async function startHttpsServer(
  pki: Pki,
  handler: (req: RecordedRequest, res: ServerResponse) => void,
): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer({ cert: pki.serverCert, key: pki.serverKey, ca: pki.ca, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate?.();
      const rec: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: req.socket.remotePort ?? 0,
        clientCN: peer && 'subject' in peer && peer.subject ? (peer.subject.CN as string) : undefined,
      };
      requests.push(rec);
      handler(rec, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string | string[]> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

/** A RestConfig for a test server: its URL, trusting its CA, no credentials, namespace `default`. */
export function restConfigFor(server: TestServer, pki: Pki, over: Partial<RestConfig> = {}): RestConfig {
  return {
    server: server.url,
    contextName: '',
    clusterName: '',
    userName: '',
    namespace: 'default',
    namespaceExplicit: false,
    ca: pki.ca,
    insecureSkipTlsVerify: false,
    timeoutMs: 0,
    disableCompression: false,
    userAgent: 'clientctl/test',
    ...over,
  };
}
