import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type JWK, type JWTPayload } from 'jose';
import { createCertificateAuthority, issueServingCertificate, type PemKeyPair } from '@plat/x509';

/** What a route of the test provider answers (JSON content type unless `contentType` says otherwise). */
export interface RouteAnswer {
  status?: number;
  body: string;
  contentType?: string;
}

/**
 * A small OIDC provider for tests, over real HTTPS: serves discovery and a JWKS, signs tokens with
 * real keys, can rotate keys, change the discovered issuer, go down and come back, and serve more
 * routes (distributed claim sources) under its URL.
 */
export interface TestOidcProvider {
  url: string;
  ca: string;
  requests: string[];
  sign(claims: JWTPayload, opts?: { alg?: string; kid?: string; header?: Record<string, unknown> }): Promise<string>;
  addKey(alg: string): Promise<string>;
  /** Replaces the JWKS with only this key (rotation). */
  rotate(alg: string): Promise<string>;
  setDiscoveredIssuer(issuer: string | undefined): void;
  /** Serves `path` (under the provider's URL) with `answer`, called per request. */
  route(path: string, answer: (req: IncomingMessage) => RouteAnswer | Promise<RouteAnswer>): void;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

interface Key {
  kid: string;
  alg: string;
  privateKey: CryptoKeyLike;
  jwk: JWK;
}
type CryptoKeyLike = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

export async function startOidcProvider(opts: { path?: string; ca?: PemKeyPair } = {}): Promise<TestOidcProvider> {
  const ca = opts.ca ?? (await createCertificateAuthority({ commonName: 'oidc-test-ca' }));
  const serving = await issueServingCertificate(ca, { commonName: 'localhost', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const keys: Key[] = [];
  const requests: string[] = [];
  const routes = new Map<string, (req: IncomingMessage) => RouteAnswer | Promise<RouteAnswer>>();
  let discoveredIssuer: string | undefined;
  let port = 0;
  let server: https.Server | undefined;
  const path = opts.path ?? '';
  let url = '';

  const newKey = async (alg: string): Promise<Key> => {
    const kid = `${alg.toLowerCase()}-${keys.length + 1}-${Math.random().toString(36).slice(2, 8)}`;
    const { privateKey, publicKey } = await generateKeyPair(alg, alg === 'EdDSA' ? { crv: 'Ed25519' } : {});
    const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
    return { kid, alg, privateKey, jwk };
  };

  const listen = async () => {
    server = https.createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
      requests.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      if (req.url === `${path}/.well-known/openid-configuration`) {
        res.end(
          JSON.stringify({
            issuer: discoveredIssuer ?? url,
            jwks_uri: `${url}/keys`,
            id_token_signing_alg_values_supported: [...new Set(keys.map((k) => k.alg))],
          }),
        );
      } else if (req.url === `${path}/keys`) {
        res.end(JSON.stringify({ keys: keys.map((k) => k.jwk) }));
      } else if (req.url?.startsWith(path) && routes.has(req.url.slice(path.length))) {
        void Promise.resolve(routes.get(req.url.slice(path.length))!(req)).then((answer) => {
          res.statusCode = answer.status ?? 200;
          if (answer.contentType) res.setHeader('content-type', answer.contentType);
          res.end(answer.body);
        });
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server!.address() as AddressInfo).port;
    url = `https://localhost:${port}${path}`;
  };
  await listen();
  keys.push(await newKey('RS256'));

  return {
    get url() {
      return url;
    },
    ca: ca.certPem,
    requests,
    async sign(claims, signOpts = {}) {
      const key = signOpts.kid ? keys.find((k) => k.kid === signOpts.kid)! : keys.find((k) => !signOpts.alg || k.alg === signOpts.alg)!;
      return new SignJWT(claims)
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...signOpts.header })
        .sign(key.privateKey);
    },
    async addKey(alg) {
      const key = await newKey(alg);
      keys.push(key);
      return key.kid;
    },
    async rotate(alg) {
      const key = await newKey(alg);
      keys.splice(0, keys.length, key);
      return key.kid;
    },
    setDiscoveredIssuer(issuer) {
      discoveredIssuer = issuer;
    },
    route(routePath, answer) {
      routes.set(routePath, answer);
    },
    async stop() {
      await new Promise<void>((resolve) => {
        server!.closeAllConnections();
        server!.close(() => resolve());
      });
    },
    start: listen,
    async close() {
      if (server?.listening) await (this as TestOidcProvider).stop();
    },
  };
}
