import type { X509Certificate } from 'node:crypto';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { createCertificateAuthority, issueServingCertificate, type PemKeyPair } from '@plat/x509';
import type { AuthenticationRequest, Authenticator } from '../src/index.js';

export interface AuthServer {
  url: string;
  ca: PemKeyPair;
  close(): Promise<void>;
}

/**
 * A real HTTPS server that runs `authenticator` on every request (client certificates requested,
 * not required) and answers 200 with the result, or 401 with the error message. `read`: how the
 * server reads the client certificate, as node's legacy object with its chain
 * (getPeerCertificate(true), the default) or as node:crypto's X509Certificate
 * (getPeerX509Certificate(), once per connection, as @plat/server does).
 */
export async function startAuthServer(authenticator: Authenticator, clientCA: string, read: 'legacy' | 'x509' = 'legacy'): Promise<AuthServer> {
  const ca = await createCertificateAuthority({ commonName: 'test-serving-ca' });
  const serving = await issueServingCertificate(ca, { commonName: 'localhost', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const x509BySocket = new WeakMap<TLSSocket, { cert: X509Certificate | undefined }>();
  const server = https.createServer(
    { cert: serving.certPem, key: serving.keyPem, ca: clientCA, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      const socket = req.socket as TLSSocket;
      let tls: AuthenticationRequest['tls'];
      if (read === 'x509') {
        // Node hands the chain to the first getPeerX509Certificate() of a connection only.
        let x509 = x509BySocket.get(socket);
        if (!x509) x509BySocket.set(socket, (x509 = { cert: socket.getPeerX509Certificate() }));
        tls = { authorized: socket.authorized, peerX509Certificate: x509.cert };
      } else {
        const peer = socket.getPeerCertificate(true);
        tls = { authorized: socket.authorized, peerCertificate: peer && peer.raw ? peer : undefined };
      }
      const authReq: AuthenticationRequest = {
        method: req.method ?? 'GET',
        path: (req.url ?? '/').split('?')[0],
        headers: req.headersDistinct as AuthenticationRequest['headers'],
        tls,
      };
      authenticator.authenticate(authReq).then(
        (result) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(result));
        },
        (err: Error) => {
          res.writeHead(401, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: err.message, name: err.name }));
        },
      );
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/`,
    ca,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface CallResult {
  status: number;
  body: { user?: { username: string; groups: string[]; uid?: string }; error?: string; name?: string } | null;
}

/** One HTTPS GET with an optional client certificate (PEM, may hold intermediates) and headers. */
export function call(
  server: AuthServer,
  opts: { cert?: string; key?: string; headers?: Record<string, string | string[]> } = {},
): Promise<CallResult> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      server.url,
      { ca: server.ca.certPem, cert: opts.cert, key: opts.key, headers: opts.headers, agent: false },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (data += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(data) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}
