import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { PemKeyPair } from '@plat/x509';

export type WebhookAnswer =
  | { status: { allowed: boolean; denied?: boolean; reason?: string; evaluationError?: string } }
  | { raw: string; code?: number; delayMs?: number }
  | { delayMs: number; status: { allowed: boolean } };

/**
 * A webhook authorizer for tests, over real HTTPS requiring a client certificate signed by `ca`
 * and, optionally, a bearer token. `decide` sees each review; every call is recorded.
 */
export async function startWebhookServer(opts: {
  ca: PemKeyPair;
  serving: PemKeyPair;
  token?: string;
  decide: (review: { apiVersion: string; spec: Record<string, unknown> }) => WebhookAnswer;
}): Promise<{ url: string; calls: { apiVersion: string; spec: Record<string, unknown>; clientCN: string; headers: Record<string, unknown> }[]; close(): Promise<void> }> {
  const calls: { apiVersion: string; spec: Record<string, unknown>; clientCN: string; headers: Record<string, unknown> }[] = [];
  const server = https.createServer(
    { cert: opts.serving.certPem, key: opts.serving.keyPem, ca: opts.ca.certPem, requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) {
          res.statusCode = 401;
          res.end('unauthorized');
          return;
        }
        const review = JSON.parse(body) as { apiVersion: string; spec: Record<string, unknown> };
        const clientCN = String((req.socket as TLSSocket).getPeerCertificate().subject?.CN ?? '');
        calls.push({ ...review, clientCN, headers: req.headers });
        const answer = opts.decide(review);
        const send = () => {
          if ('raw' in answer) {
            res.statusCode = answer.code ?? 200;
            res.end(answer.raw);
          } else {
            res.setHeader('content-type', 'application/json');
            res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'SubjectAccessReview', status: answer.status }));
          }
        };
        const delay = 'delayMs' in answer ? answer.delayMs : 0;
        if (delay) setTimeout(send, delay);
        else send();
      });
    },
  );
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/authorize`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
