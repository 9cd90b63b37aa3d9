import type { X509Certificate } from 'node:crypto';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { newUnauthorized } from '@plat/api-model';
import { withAuthenticatedGroup, type AuthenticationRequest, type Authenticator, type UserInfo } from '@plat/auth';
import type { Filter, RequestContext } from '../context.js';
import { LoopbackIncomingRequest } from '../loopback.js';
import type { ServerLogger } from '../logger.js';
import { requestHeader } from '../request-header.js';
import { writeError } from '../response.js';

function rawHeaders(ctx: RequestContext): string[] {
  return (ctx.req as unknown as { rawHeaders?: string[] }).rawHeaders ?? [];
}

/** Whether any header name starts with `prefix` (lower-case), without building a header map. */
export function hasHeaderWithPrefix(ctx: RequestContext, prefix: string): boolean {
  const raw = rawHeaders(ctx);
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    // Cheap first-letter test before the lower-casing compare.
    if (name.length >= prefix.length && (name.charCodeAt(0) | 0x20) === prefix.charCodeAt(0) && name.slice(0, prefix.length).toLowerCase() === prefix) return true;
  }
  return false;
}

/**
 * What a connection's client certificate says. The certificate is node:crypto's X509Certificate
 * with the certificates the client sent after it as its issuer chain (getPeerX509Certificate: the
 * leaf is the one OpenSSL holds, where getPeerCertificate(true) copies every certificate of the
 * chain, the CA it finds in the store included, through a DER round trip, each ~0.1 ms of OpenSSL
 * 3's public-key decoding, and builds a legacy object for each). Per new connection, with the
 * chain's fingerprints: 35 µs against 178 for a client that sends its leaf alone (kubectl), 195
 * against 298 for one that sends the CA too (node's client); tools/bench/apiserver/peer-certificate.mjs,
 * medians, load 3. In the apiserver under perf (connections.mjs's load, leaf and CA): 160 µs per
 * connection in GetPeerX509Certificate against 260 in GetPeerCertificate (docs/performance.md,
 * "apiserver", per new connection). The legacy object is made only if something reads it.
 */
class ConnectionTls {
  private legacy: PeerCertificate | undefined;

  constructor(
    private readonly socket: TLSSocket,
    readonly authorized: boolean,
    readonly peerX509Certificate: X509Certificate,
  ) {}

  /** The leaf as getPeerCertificate() answers it (without the chain: peerX509Certificate has it). */
  get peerCertificate(): PeerCertificate {
    return (this.legacy ??= this.socket.getPeerCertificate());
  }
}

// A connection's client certificate never changes: read it once per socket. Once also because
// node 20 hands the chain to the first getPeerX509Certificate() only (it moves the certificates
// out of the connection's list as it links them): a second read has the leaf alone. One map for
// every server of the process, so that no second filter reads a socket again. Weak: an entry goes
// with its socket.
const tlsInfoBySocket = new WeakMap<object, AuthenticationRequest['tls']>();
const noClientCertificate: AuthenticationRequest['tls'] = Object.freeze({ authorized: false });

function tlsInfo(ctx: RequestContext): AuthenticationRequest['tls'] {
  // HTTP/2 hands each request its own proxy of the socket: use the session's socket.
  const socket = ((ctx.req as { stream?: { session?: { socket?: object } } }).stream?.session?.socket ?? ctx.req.socket) as TLSSocket;
  if (typeof socket.getPeerX509Certificate !== 'function') return undefined;
  const cached = tlsInfoBySocket.get(socket);
  if (cached) return cached;
  const peer = socket.getPeerX509Certificate();
  const info = peer ? new ConnectionTls(socket, socket.authorized === true, peer) : noClientCertificate;
  tlsInfoBySocket.set(socket, info);
  return info;
}

/**
 * Whether the request's connection presented a client certificate, trusted or not (Kubernetes'
 * getAuthMethods asks `len(r.TLS.PeerCertificates) > 0`): from what authentication read of the
 * connection, without asking the socket again.
 */
export function presentedClientCertificate(ctx: RequestContext): boolean {
  const info = tlsInfo(ctx);
  return info !== undefined && info !== noClientCertificate;
}

/**
 * The request as authenticators see it. Headers and signal are made only if an authenticator
 * looks at them (a client certificate needs neither).
 */
class LazyAuthenticationRequest implements AuthenticationRequest {
  readonly method: string;
  readonly path: string;
  readonly tls: AuthenticationRequest['tls'];

  constructor(private readonly request: RequestContext) {
    this.method = request.method;
    // Decoded, as Go's URL.Path that kube's anonymous path conditions compare.
    this.path = request.info.path;
    this.tls = tlsInfo(request);
  }

  get headers(): Record<string, string | string[] | undefined> {
    return this.request.headerLists;
  }

  get signal(): AbortSignal {
    return this.request.signal;
  }
}

/**
 * Runs the authenticator: a recognised user continues (with `system:authenticated`), anything
 * else is 401 Unauthorized, after which `onUnauthenticated` runs (the failed-authentication audit,
 * filters/audit.ts). The Authorization header is not passed further down.
 */
export function withAuthentication(authenticator: Authenticator, logger: ServerLogger, onUnauthenticated?: (ctx: RequestContext) => Promise<void>): Filter {
  return (next) => {
    const proceed = (ctx: RequestContext, user: UserInfo): Promise<void> => {
      // Only when there is one: `req.headers` is built on first use, and a GET with a client
      // certificate need not build it (request-header.ts).
      if (requestHeader(ctx.req, 'authorization') !== undefined) delete ctx.req.headers.authorization;
      ctx.user = user;
      ctx.authenticatedUser = user;
      return next(ctx);
    };
    const awaited = async (ctx: RequestContext, request: LazyAuthenticationRequest | undefined): Promise<void> => {
      let user;
      try {
        // The server's own requests (loopback.ts) carry their user, as kube-apiserver's loopback
        // token authenticator comes first. The request is the scope of the others: an
        // authenticator may pin the authorizer to it.
        const result = request ? await authenticator.authenticate(request, ctx) : { user: (ctx.req as LoopbackIncomingRequest).user };
        user = result ? withAuthenticatedGroup(result).user : undefined;
      } catch (err) {
        logger.info('Unable to authenticate the request', { err: (err as Error).message, auditID: ctx.auditId }, 2);
      }
      if (!user) {
        writeError(ctx, newUnauthorized('Unauthorized'));
        if (onUnauthenticated) await onUnauthenticated(ctx);
        return;
      }
      await proceed(ctx, user);
    };
    return (ctx) => {
      if (ctx.req instanceof LoopbackIncomingRequest) return awaited(ctx, undefined);
      const request = new LazyAuthenticationRequest(ctx);
      // A user the authenticator knows without waiting (a client certificate seen before) goes on
      // to the next handler at once: no async function, promise and resumption per layer (this
      // filter, anonymous, union, x509), 2.0 KB less garbage per GET (docs/performance.md,
      // "apiserver"). Anything else, a 401 included, takes the awaited path.
      const known = authenticator.authenticateKnown?.(request, ctx);
      return known ? proceed(ctx, withAuthenticatedGroup(known).user) : awaited(ctx, request);
    };
  };
}
