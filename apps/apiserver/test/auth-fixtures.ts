import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { SignJWT, exportJWK, generateKeyPair, type JWK, type JWTPayload } from 'jose';
import { Agent, request } from 'undici';
import yargs from 'yargs';
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate, type PemKeyPair } from '@plat/x509';
import type { Logger } from '../src/logger.js';
import { completeServeOptions, declareServeFlags, type RawFlags } from '../src/options.js';
import { runServer, type IdentityTuning, type RunningServer } from '../src/run-server.js';

// Real HTTPS fixtures for the authentication and authorization wiring: an OIDC provider, a
// webhook authorizer that requires a client certificate, and the apiserver started in process.

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

export interface OidcProvider {
  readonly url: string;
  caFile: string;
  /** Signs with the key of `kid`, or the first key of `alg` (default: the first key, RS256). */
  sign(claims: JWTPayload, opts?: { kid?: string; alg?: string }): Promise<string>;
  /** Replaces the signing keys with one new key; answers its kid. */
  rotate(): Promise<string>;
  stop(): Promise<void>;
  start(): Promise<void>;
  requests: string[];
}

/** Discovery and JWKS over HTTPS on a fixed port (so that it can go down and come back at the same URL). */
export async function startOidcProvider(dir: string, opts: { listen?: boolean; extraAlgs?: string[] } = {}): Promise<OidcProvider> {
  const ca = await createCertificateAuthority({ commonName: 'oidc-ca' });
  const serving = await issueServingCertificate(ca, { commonName: 'localhost', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const caFile = path.join(dir, 'oidc-ca.crt');
  fs.writeFileSync(caFile, ca.certPem);
  const keys: { kid: string; alg: string; privateKey: PrivateKey; jwk: JWK }[] = [];
  const newKey = async (alg = 'RS256') => {
    const kid = `k${keys.length}-${Math.random().toString(36).slice(2, 8)}`;
    const { privateKey, publicKey } = await generateKeyPair(alg);
    return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
  };
  keys.push(await newKey());
  for (const alg of opts.extraAlgs ?? []) keys.push(await newKey(alg));
  const requests: string[] = [];
  let server: https.Server | undefined;
  // Reserve a port: listen once and keep it for restarts.
  const probe = https.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  const url = `https://localhost:${port}`;
  const start = async () => {
    server = https.createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
      requests.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/openid-configuration') res.end(JSON.stringify({ issuer: url, jwks_uri: `${url}/keys` }));
      else if (req.url === '/keys') res.end(JSON.stringify({ keys: keys.map((k) => k.jwk) }));
      else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
    await new Promise<void>((r) => server!.listen(port, '127.0.0.1', r));
  };
  if (opts.listen !== false) await start();
  return {
    url,
    caFile,
    requests,
    async sign(claims, signOpts = {}) {
      const key = signOpts.kid ? keys.find((k) => k.kid === signOpts.kid)! : signOpts.alg ? keys.find((k) => k.alg === signOpts.alg)! : keys[0]!;
      return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' }).sign(key.privateKey);
    },
    async rotate() {
      const key = await newKey();
      keys.splice(0, keys.length, key);
      return key.kid;
    },
    start,
    async stop() {
      if (!server?.listening) return;
      await new Promise<void>((r) => {
        server!.closeAllConnections();
        server!.close(() => r());
      });
    },
  };
}

export interface WebhookCall {
  apiVersion: string;
  spec: Record<string, unknown>;
  clientCN: string;
  /** The W3C trace context the apiserver sent with the review, if any. */
  traceparent?: string;
}

export type WebhookAnswer = { allowed: boolean; denied?: boolean; reason?: string } | { raw: string; code: number } | { delayMs: number };

/**
 * A SubjectAccessReview webhook over HTTPS that requires a client certificate of its own CA, and
 * writes the PlatConfig (kubeconfig format) file the apiserver reads to reach it.
 */
export async function startWebhook(
  dir: string,
  decide: (spec: Record<string, unknown>) => WebhookAnswer,
): Promise<{ url: string; configFile: string; calls: WebhookCall[]; close(): Promise<void> }> {
  const ca = await createCertificateAuthority({ commonName: 'webhook-ca' });
  const serving = await issueServingCertificate(ca, { commonName: 'webhook', dnsNames: ['webhook.test'], ipAddresses: ['127.0.0.1'] });
  const client: PemKeyPair = await issueClientCertificate(ca, { commonName: 'apiserver' });
  const calls: WebhookCall[] = [];
  const server = https.createServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const review = JSON.parse(body) as { apiVersion: string; spec: Record<string, unknown> };
      calls.push({
        ...review,
        clientCN: String((req.socket as TLSSocket).getPeerCertificate().subject?.CN ?? ''),
        traceparent: req.headers.traceparent as string | undefined,
      });
      const answer = decide(review.spec);
      if ('raw' in answer) {
        res.statusCode = answer.code;
        res.end(answer.raw);
      } else if ('delayMs' in answer) {
        setTimeout(() => res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'SubjectAccessReview', status: { allowed: true } })), answer.delayMs);
      } else {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'SubjectAccessReview', status: answer }));
      }
    });
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/authorize`;
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const configFile = path.join(dir, `webhook-${Math.random().toString(36).slice(2, 8)}.conf`);
  fs.writeFileSync(
    configFile,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: webhook',
      '  cluster:',
      `    server: ${url}`,
      `    certificate-authority-data: ${b64(ca.certPem)}`,
      '    tls-server-name: webhook.test',
      'users:',
      '- name: apiserver',
      '  user:',
      `    client-certificate-data: ${b64(client.certPem)}`,
      `    client-key-data: ${b64(client.keyPem)}`,
      'contexts:',
      '- name: webhook',
      '  context: {cluster: webhook, user: apiserver}',
      'current-context: webhook',
      '',
    ].join('\n'),
  );
  return {
    url,
    configFile,
    calls,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export interface WebhookAuthorizerOptions {
  timeout?: string;
  authorizedTTL?: string;
  unauthorizedTTL?: string;
  version?: string;
  failurePolicy?: string;
  /** CEL expressions: the webhook is asked only when every one is true. */
  matchConditions?: string[];
  /** The type of the authorizer after the webhook (AlwaysDeny, AlwaysAllow), if any. */
  then?: string;
}

/**
 * An AuthorizationConfiguration (YAML) with the Webhook authorizer `policy`, reached through the
 * PlatConfig file `platConfigFile` (startWebhook's configFile). Defaults: timeout 3s, v1 reviews,
 * failurePolicy Deny, the cache TTLs of the configuration's defaults.
 */
export function webhookAuthorizationConfig(platConfigFile: string, opts: WebhookAuthorizerOptions = {}): string {
  return [
    'apiVersion: apiserver.plat.io/v1beta1',
    'kind: AuthorizationConfiguration',
    'authorizers:',
    '- type: Webhook',
    '  name: policy',
    '  webhook:',
    `    timeout: ${opts.timeout ?? '3s'}`,
    ...(opts.authorizedTTL ? [`    authorizedTTL: ${opts.authorizedTTL}`] : []),
    ...(opts.unauthorizedTTL ? [`    unauthorizedTTL: ${opts.unauthorizedTTL}`] : []),
    `    subjectAccessReviewVersion: ${opts.version ?? 'v1'}`,
    '    matchConditionSubjectAccessReviewVersion: v1',
    `    failurePolicy: ${opts.failurePolicy ?? 'Deny'}`,
    '    connectionInfo:',
    '      type: PlatConfigFile',
    `      platConfigFile: ${platConfigFile}`,
    ...(opts.matchConditions?.length ? ['    matchConditions:', ...opts.matchConditions.map((e) => `    - expression: ${JSON.stringify(e)}`)] : []),
    ...(opts.then ? [`- type: ${opts.then}`, `  name: ${opts.then.toLowerCase()}`] : []),
    '',
  ].join('\n');
}

export interface TestServer {
  running: RunningServer;
  url: string;
  logs: string[];
  /** HTTPS request as the development admin (`admin`), anonymous (`none`), or with a bearer token. */
  req(
    who: 'admin' | 'none' | { token: string },
    method: string,
    p: string,
    body?: unknown,
  ): Promise<{ status: number; text: string; json: Record<string, unknown> }>;
  stop(): Promise<void>;
}

export async function parseFlags(args: string[]): Promise<RawFlags> {
  return (await declareServeFlags(yargs(args).parserConfiguration({ 'camel-case-expansion': false })).parseAsync()) as unknown as RawFlags;
}

/** The apiserver in process (memory storage unless `args` name one, development PKI in `dataDir`, a free port), with `args` as flags. */
export async function startServer(dataDir: string, args: string[], identity: IdentityTuning = {}): Promise<TestServer> {
  const storage = args.some((a) => a.startsWith('--storage-backend=')) ? [] : ['--storage-backend=memory'];
  const { options, errors } = completeServeOptions(await parseFlags(['--secure-port=0', ...storage, `--data-dir=${dataDir}`, ...args]));
  if (!options) throw new Error(errors.join('\n'));
  const logs: string[] = [];
  const logger: Logger = {
    info: (message, fields) => void logs.push(`${message} ${JSON.stringify(fields ?? {})}`),
    error: (message, fields) => void logs.push(`ERROR ${message} ${JSON.stringify(fields ?? {})}`),
    enabled: () => true,
  };
  const running = await runServer(options, { logger, version: '0.0.0-test', identity: { reloadIntervalMs: 100, ...identity } });
  const pki = running.devPki!;
  const agents = {
    admin: new Agent({ connect: { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem } }),
    plain: new Agent({ connect: { ca: pki.ca.certPem } }),
  };
  return {
    running,
    url: running.url,
    logs,
    async req(who, method, p, body) {
      const headers: Record<string, string> = {};
      if (typeof who === 'object') headers.authorization = `Bearer ${who.token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await request(`${running.url}${p}`, {
        method: method as 'GET',
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        dispatcher: who === 'admin' ? agents.admin : agents.plain,
      });
      const text = await res.body.text();
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(text) as Record<string, unknown>;
      } catch {
        json = {};
      }
      return { status: res.statusCode, text, json };
    },
    async stop() {
      await running.stop();
      await Promise.all([agents.admin.close(), agents.plain.close()]);
    },
  };
}

/** Replaces a file at once (write + rename), as editors and config management do: a watcher never reads half a file. */
export function replaceFile(file: string, content: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, content);
  fs.renameSync(tmp, file);
}

/** Polls `probe` until it answers true (at most `timeoutMs`). */
export async function eventually(probe: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
