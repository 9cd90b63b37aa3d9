// A real API server over HTTPS with MemoryStorage, client certificates from a test CA, and
// test-local authenticator/authorizer implementations (explicit rules, no mocks of our parts).
import { Agent, request } from 'undici';
import type { IncomingHttpHeaders } from 'undici/types/header.js';
import type { PeerCertificate } from 'node:tls';
import { AuthenticationError, type Attributes, type Authenticator, type Authorizer, type UserInfo } from '@plat/auth';
import { MemoryStorage } from '@plat/storage';
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate, type PemKeyPair } from '@plat/x509';
import { createApiServer, type ApiServer, type ApiServerOptions } from '@plat/server';
import { clusterTrustBundleResource, reviewResources } from '../src/index.js';

export const ctbPath = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';

/** Users with a client certificate: CN = name, O = groups. */
export const users = {
  admin: { cn: 'admin', groups: ['system:masters'] },
  reader: { cn: 'reader', groups: [] },
  writer: { cn: 'writer', groups: ['writers'] },
  attester: { cn: 'attester', groups: ['writers'] },
  nsUser: { cn: 'ns-user', groups: [] },
} as const;
export type UserName = keyof typeof users | 'anonymous' | 'token' | 'slow' | 'panic';

/** Reads the identity from a verified client certificate, or a bearer token from a fixed table. */
export const testAuthenticator: Authenticator = {
  async authenticate(req) {
    const cert = req.tls?.peerCertificate as PeerCertificate | undefined;
    if (cert && req.tls?.authorized) {
      const o = cert.subject.O as string | string[] | undefined;
      return { user: { username: String(cert.subject.CN), groups: o === undefined ? [] : Array.isArray(o) ? o : [o] } };
    }
    const auth = req.headers['authorization'];
    const header = Array.isArray(auth) ? auth[0] : auth;
    if (header?.startsWith('Bearer ')) {
      if (header === 'Bearer token-of-tokenuser') return { user: { username: 'tokenuser', groups: [] } };
      if (header === 'Bearer slow') return { user: { username: 'slowuser', groups: ['writers'] } };
      throw new AuthenticationError('invalid bearer token');
    }
    return null;
  },
};

const writeVerbs = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
const readVerbs = new Set(['get', 'list', 'watch']);

/** Explicit rules standing in for the app's authorizer chain. */
export const testAuthorizer: Authorizer = {
  async authorize(a: Attributes) {
    const u: UserInfo = a.user;
    // Holds the request for a while (after the in-flight filter, as authorization runs in
    // Kubernetes' chain): lets tests fill in-flight slots and hit timeouts.
    if (u.username === 'slowuser') await new Promise((r) => setTimeout(r, 600));
    if (u.groups.includes('system:masters')) return { decision: 'Allow', reason: '' };
    if (u.username === 'panic') throw new TypeError('authorizer exploded');
    if (!a.resourceRequest) {
      return a.verb === 'get' ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: '' };
    }
    if (a.resource === 'clustertrustbundles' && readVerbs.has(a.verb) && u.username !== 'ns-user') {
      return { decision: 'Allow', reason: '' };
    }
    if (a.resource === 'clustertrustbundles' && writeVerbs.has(a.verb) && u.groups.includes('writers')) {
      return { decision: 'Allow', reason: '' };
    }
    if (a.verb === 'attest' && a.resource === 'signers' && u.username === 'attester' && a.name === 'example.com/*') {
      return { decision: 'Allow', reason: '' };
    }
    if (a.verb === 'impersonate' && u.username === 'ns-user' && a.resource === 'serviceaccounts' && a.namespace === 'team-a') {
      return { decision: 'Allow', reason: '' };
    }
    return { decision: 'NoOpinion', reason: '' };
  },
};

export interface TestResponse<T = Record<string, unknown>> {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: T;
}

export interface RequestOptions {
  headers?: Record<string, string | string[]>;
  body?: unknown;
  /** Sent as is (a string or Buffer), with the given content type. */
  raw?: string | Buffer;
  contentType?: string;
}

export interface TestCluster {
  server: ApiServer;
  storage: MemoryStorage;
  url: string;
  ca: PemKeyPair;
  /** A CA certificate usable as trust anchor content. */
  anchorPem: string;
  anchorPem2: string;
  agent(user: UserName): Agent;
  /** The client certificate and key of a user, for clients built by the test. */
  clientCertificate(user: keyof typeof users): PemKeyPair;
  req<T = Record<string, unknown>>(user: UserName, method: string, path: string, opts?: RequestOptions): Promise<TestResponse<T>>;
  close(): Promise<void>;
}

let pki: Promise<{ ca: PemKeyPair; serving: PemKeyPair; clients: Record<string, PemKeyPair>; anchors: PemKeyPair[] }> | undefined;

function testPki() {
  pki ??= (async () => {
    const ca = await createCertificateAuthority({ commonName: 'plat-test-ca' });
    const serving = await issueServingCertificate(ca, { commonName: 'localhost', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    const clients: Record<string, PemKeyPair> = {};
    for (const [name, u] of Object.entries(users)) {
      clients[name] = await issueClientCertificate(ca, { commonName: u.cn, organizations: [...u.groups] });
    }
    clients['panic'] = await issueClientCertificate(ca, { commonName: 'panic' });
    const anchors = [await createCertificateAuthority({ commonName: 'anchor-one' }), await createCertificateAuthority({ commonName: 'anchor-two' })];
    return { ca, serving, clients, anchors };
  })();
  return pki;
}

/**
 * A server of `resources` (default: ClusterTrustBundle), plus the review APIs unless `reviews` is
 * false, as plat-apiserver serves them.
 */
export async function startCluster(overrides: Partial<ApiServerOptions> & { reviews?: boolean } = {}): Promise<TestCluster> {
  const { ca, serving, clients, anchors } = await testPki();
  const storage = new MemoryStorage({ bookmarkIntervalMs: 200 });
  const { reviews, resources, ...options } = overrides;
  const server = createApiServer({
    storage,
    authenticator: testAuthenticator,
    authorizer: testAuthorizer,
    tls: { cert: serving.certPem, key: serving.keyPem, clientCA: ca.certPem },
    ...options,
    resources: [...(resources ?? [clusterTrustBundleResource()]), ...(reviews === false ? [] : reviewResources())],
  });
  const { url } = await server.listen({ host: '127.0.0.1', port: 0 });
  const agents = new Map<string, Agent>();
  const agent = (user: UserName): Agent => {
    let a = agents.get(user);
    if (!a) {
      const client = clients[user];
      a = new Agent({
        connect: { ca: ca.certPem, ...(client ? { cert: client.certPem, key: client.keyPem } : {}), servername: 'localhost' },
      });
      agents.set(user, a);
    }
    return a;
  };
  return {
    server,
    storage,
    url,
    ca,
    anchorPem: anchors[0]!.certPem,
    anchorPem2: anchors[1]!.certPem,
    agent,
    clientCertificate: (user) => clients[user]!,
    async req(user, method, path, opts = {}) {
      const headers: Record<string, string | string[]> = { ...opts.headers };
      let body: string | Buffer | undefined;
      if (opts.raw !== undefined) body = opts.raw;
      else if (opts.body !== undefined) body = JSON.stringify(opts.body);
      if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
        headers['content-type'] = opts.contentType ?? 'application/json';
      }
      if (user === 'token') headers['authorization'] = 'Bearer token-of-tokenuser';
      if (user === 'slow') headers['authorization'] = 'Bearer slow';
      const res = await request(`${url}${path}`, { method: method as 'GET', headers, body, dispatcher: agent(user) });
      const buf = Buffer.from(await res.body.arrayBuffer());
      const text = buf.toString('utf8');
      let json: unknown = undefined;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: res.statusCode, headers: res.headers, text, json: json as never };
    },
    async close() {
      await server.close();
      await Promise.all([...agents.values()].map((a) => a.close()));
      await storage.close();
    },
  };
}

/** A ClusterTrustBundle body. */
/**
 * Polls `condition` every 20 ms until it holds, and fails after `timeoutMs`: 15 s, so that CI's
 * loaded workers (2 CPUs shared by two jest projects) still make it.
 */
export async function eventually(condition: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function bundle(name: string, pem: string, signerName?: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'certificates.plat.io/v1alpha1',
    kind: 'ClusterTrustBundle',
    metadata: { name, ...((extra['metadata'] as object) ?? {}) },
    spec: { ...(signerName ? { signerName } : {}), trustBundle: pem },
  };
}

/** The test chain plus self reviews for everybody (Kubernetes' system:basic-user rule). */
export const selfReviewAuthorizer: Authorizer = {
  async authorize(a: Attributes) {
    if (a.resourceRequest && a.verb === 'create' && a.resource === 'selfsubjectreviews') return { decision: 'Allow', reason: '' };
    return testAuthorizer.authorize(a);
  },
};

/**
 * An apply configuration that does not fit the schema (a field it lacks, a value of the wrong
 * type): kube-apiserver's field manager text, answered as 400 BadRequest (kube: 500; see
 * rest/apply.test.ts).
 */
export function isApplyTypeError(status: Record<string, unknown> | undefined): boolean {
  return status?.['code'] === 400 && status['reason'] === 'BadRequest' && String(status['message']).startsWith('failed to create typed patch object (');
}
