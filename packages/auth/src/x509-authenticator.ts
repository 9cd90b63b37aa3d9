import { X509Certificate } from 'node:crypto';
import type { DetailedPeerCertificate, PeerCertificate } from 'node:tls';
import { LRUCache } from 'lru-cache';
import { Histogram, type Registry } from 'prom-client';
import {
  ChainVerificationError,
  extKeyUsageClientAuth,
  parseCertificateBundle,
  verifyCertificateChain,
} from './certificate-chain.js';
import { certificateKeyIds } from './certificate-key-ids.js';
import {
  AuthenticationError,
  type AuthenticationRequest,
  type AuthenticationResult,
  type Authenticator,
} from './interface.js';

export interface X509AuthenticatorOptions {
  /**
   * The client CA bundle (`--client-ca-file` content), or a function answering the current
   * bundle so that a reloading caller can swap it. An empty bundle authenticates nobody.
   */
  clientCA: string | Buffer | readonly X509Certificate[] | (() => readonly X509Certificate[]);
  /** Registers `apiserver_client_certificate_expiration_seconds` here when given. */
  registry?: Registry;
  /** Clock for tests. */
  now?: () => Date;
  /**
   * How many verified certificate chains to remember (default 4096). A chain is verified once
   * and then recognised by the SHA-256 fingerprints of its certificates until the earliest
   * expiry in it or until the CA bundle changes, so that keep-alive clients do not pay for
   * parsing and signature checks on every request.
   */
  cacheSize?: number;
}

interface VerifiedChain {
  anchors: readonly X509Certificate[];
  validFrom: number;
  validTo: number;
  leafValidTo: number;
  result: AuthenticationResult | null;
}

/**
 * The client's certificate as the request carries it: node:crypto's X509Certificate (what a server
 * reads with getPeerX509Certificate) or the legacy object of getPeerCertificate(true). Both link
 * the certificates the client sent after its leaf through `issuerCertificate`.
 */
type Peer = X509Certificate | PeerCertificate;

/** How many certificates of a presented chain count (leaf included); the rest are ignored. */
const maxPresentedChain = 16;

/** The presented certificates, leaf first, at most maxPresentedChain and each once. */
function presented<T extends X509Certificate | DetailedPeerCertificate>(leaf: T): T[] {
  const certs: T[] = [];
  const prints: string[] = [];
  let current: T | undefined = leaf;
  while (current && current.fingerprint256 && !prints.includes(current.fingerprint256) && certs.length < maxPresentedChain) {
    prints.push(current.fingerprint256);
    certs.push(current);
    current = current.issuerCertificate as T | undefined;
  }
  return certs;
}

// A server hands the same peer-certificate object for every request of a connection.
const chainKeys = new WeakMap<Peer, string>();

/**
 * The SHA-256 fingerprints of the certificates the peer presented (leaf first): what identifies a
 * verified chain exactly, as the same leaf with other intermediates may not verify.
 */
function chainKey(peer: Peer): string {
  const known = chainKeys.get(peer);
  if (known !== undefined) return known;
  const key = presented(peer as X509Certificate | DetailedPeerCertificate)
    .map((c) => c.fingerprint256)
    .join('/');
  chainKeys.set(peer, key);
  return key;
}

/**
 * The result every request of a verified chain shares. Deep-frozen instead of copied per request:
 * no caller can change another request's user (a change throws), and a GET spares the result,
 * user and groups copies (0.25 KB of garbage; docs/performance.md, "apiserver").
 */
function frozenResult(username: string, groups: string[]): AuthenticationResult | null {
  if (username === '') return null;
  return Object.freeze({ user: Object.freeze({ username, groups: Object.freeze(groups) as string[] }) });
}

// Buckets of Kubernetes' apiserver_client_certificate_expiration_seconds (30 min .. 1 year).
const expirationBuckets = [0, 1800, 3600, 7200, 21600, 43200, 86400, 172800, 345600, 604800, 2592000, 7776000, 15552000, 31104000];

/** `SN=..., SKID=..., AKID=...` as Kubernetes names a certificate in verification errors. */
function certificateIdentifier(cert: X509Certificate): string {
  const serial = BigInt(`0x${cert.serialNumber || '0'}`).toString(10);
  const { subjectKeyId, authorityKeyId } = certificateKeyIds(cert.raw);
  return `SN=${serial}, SKID=${subjectKeyId}, AKID=${authorityKeyId}`;
}

/** The presented chain to verify: node:crypto's certificates as they are, legacy ones parsed from their DER. */
function peerChain(peer: Peer): X509Certificate[] {
  if (peer instanceof X509Certificate) return presented(peer);
  return presented(peer as DetailedPeerCertificate)
    .filter((c) => c.raw)
    .map((c) => new X509Certificate(c.raw));
}

/** The client's certificate: node:crypto's when the request has it, else the legacy object (if it has DER). */
function presentedPeer(req: AuthenticationRequest): Peer | undefined {
  const tls = req.tls;
  if (!tls) return undefined;
  if (tls.peerX509Certificate) return tls.peerX509Certificate;
  const legacy = tls.peerCertificate;
  return legacy && legacy.raw && legacy.raw.length > 0 ? legacy : undefined;
}

function subjectValues(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * Kubernetes' x509 request authenticator: verifies the TLS client certificate chain against the
 * client CA for client authentication, then maps the leaf's subject to the user: the common name
 * is the username, each organization a group. A certificate without a common name identifies
 * nobody (null, like Kubernetes' CommonNameUserConversion).
 */
export function createX509Authenticator(opts: X509AuthenticatorOptions): Authenticator {
  // The clock as a number: a cached chain's check (every request of a known client) makes no
  // Date. new Date() with its getTime() calls cost 0.45-1.2 µs against Date.now()'s 0.19-0.75
  // (one process, load 15; docs/performance.md, "apiserver").
  const nowMs = opts.now ? () => opts.now!().getTime() : Date.now;
  let roots: () => readonly X509Certificate[];
  if (typeof opts.clientCA === 'function') roots = opts.clientCA;
  else if (Array.isArray(opts.clientCA)) {
    const fixed = opts.clientCA as readonly X509Certificate[];
    roots = () => fixed;
  } else {
    const text = typeof opts.clientCA === 'string' ? opts.clientCA : (opts.clientCA as Buffer).toString('utf8');
    const fixed = text.trim() === '' ? [] : parseCertificateBundle(text);
    roots = () => fixed;
  }
  const expiration = opts.registry
    ? ((opts.registry.getSingleMetric('apiserver_client_certificate_expiration_seconds') as Histogram | undefined) ??
      new Histogram({
        name: 'apiserver_client_certificate_expiration_seconds',
        help: 'Distribution of the remaining lifetime on the certificate used to authenticate a request.',
        buckets: expirationBuckets,
        registers: [opts.registry],
      }))
    : undefined;

  const cacheSize = opts.cacheSize ?? 4096;
  const cache = cacheSize > 0 ? new LRUCache<string, VerifiedChain>({ max: cacheSize }) : undefined;

  // The verified chain by peer-certificate object: the authentication filter hands every request
  // of a connection the same one (read once per socket), so a known client's request costs one
  // WeakMap lookup instead of the chain's key and an lru-cache `get` (which makes an options
  // object and moves the entry per call): 53 ns against 66-77 for the hit with its clock read
  // (microbenchmark, load 4.4; docs/performance.md "apiserver", fourth round). Weak: an entry
  // lives as long as its connection's certificate object (so the connection limits bound it),
  // and is checked for anchors and validity as the cache's are.
  const byPeer = cache ? new WeakMap<Peer, VerifiedChain>() : undefined;

  /** The answer without verifying: null without a certificate or CA, the cached chain's, else undefined. */
  function known(req: AuthenticationRequest, atMs: number): AuthenticationResult | null | undefined {
    const peer = presentedPeer(req);
    if (!peer) return null;
    const anchors = roots();
    if (anchors.length === 0) return null;
    let hit = byPeer?.get(peer);
    if (hit === undefined || hit.anchors !== anchors) {
      hit = cache?.get(chainKey(peer));
      if (hit) byPeer!.set(peer, hit);
    }
    if (hit && hit.anchors === anchors && atMs >= hit.validFrom && atMs <= hit.validTo) {
      expiration?.observe((hit.leafValidTo - atMs) / 1000);
      return hit.result;
    }
    return undefined;
  }

  return {
    authenticateKnown: (req) => known(req, nowMs()),
    async authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | null> {
      const atMs = nowMs();
      const answer = known(req, atMs);
      if (answer !== undefined) return answer;
      const peer = presentedPeer(req)!;
      const anchors = roots();
      const key = chainKey(peer);
      const at = new Date(atMs);
      const [leaf, ...intermediates] = peerChain(peer);
      expiration?.observe((new Date(leaf.validTo).getTime() - at.getTime()) / 1000);
      let chain: X509Certificate[];
      try {
        chain = verifyCertificateChain(leaf, { intermediates, roots: anchors, keyUsage: extKeyUsageClientAuth, now: at });
      } catch (err) {
        if (err instanceof ChainVerificationError) {
          throw new AuthenticationError(`verifying certificate ${certificateIdentifier(leaf)} failed: ${err.message}`);
        }
        throw err;
      }
      const subject = leaf.toLegacyObject().subject as unknown as Record<string, string | string[] | undefined> | undefined;
      const commonNames = subjectValues(subject?.CN);
      // Go keeps the last CN attribute of the subject.
      const username = commonNames.length > 0 ? commonNames[commonNames.length - 1] : '';
      const result = frozenResult(username, subjectValues(subject?.O));
      if (cache) {
        cache.set(key, {
          anchors,
          validFrom: Math.max(...chain.map((c) => new Date(c.validFrom).getTime())),
          validTo: Math.min(...chain.map((c) => new Date(c.validTo).getTime())),
          leafValidTo: new Date(leaf.validTo).getTime(),
          result,
        });
      }
      return result;
    },
  };
}
