import type { TLSSocket } from 'node:tls';
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

/** What a connection's client certificate says, by socket (one per server: its filter's). */
type TlsInfoCache = WeakMap<object, AuthenticationRequest['tls']>;

// A connection's client certificate never changes: read it (an expensive call) once per socket.
function tlsInfo(ctx: RequestContext, tlsInfoCache: TlsInfoCache): AuthenticationRequest['tls'] {
  const socket = ctx.req.socket as TLSSocket;
  if (typeof socket.getPeerCertificate !== 'function') return undefined;
  // HTTP/2 hands each request its own proxy of the socket: key the cache by the session's socket.
  const key = (ctx.req as { stream?: { session?: { socket?: object } } }).stream?.session?.socket ?? socket;
  const cached = tlsInfoCache.get(key);
  if (cached) return cached;
  const peer = socket.getPeerCertificate(true);
  const info = !peer || Object.keys(peer).length === 0 ? { authorized: false } : { authorized: socket.authorized === true, peerCertificate: peer };
  tlsInfoCache.set(key, info);
  return info;
}

/**
 * The request as authenticators see it. Headers and signal are made only if an authenticator
 * looks at them (a client certificate needs neither).
 */
class LazyAuthenticationRequest implements AuthenticationRequest {
  readonly method: string;
  readonly path: string;
  readonly tls: AuthenticationRequest['tls'];

  constructor(
    private readonly request: RequestContext,
    tlsInfoCache: TlsInfoCache,
  ) {
    this.method = request.method;
    // Decoded, as Go's URL.Path that kube's anonymous path conditions compare.
    this.path = request.info.path;
    this.tls = tlsInfo(request, tlsInfoCache);
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
  const tlsInfoCache: TlsInfoCache = new WeakMap();
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
      const request = new LazyAuthenticationRequest(ctx, tlsInfoCache);
      // A user the authenticator knows without waiting (a client certificate seen before) goes on
      // to the next handler at once: no async function, promise and resumption per layer (this
      // filter, anonymous, union, x509), 2.0 KB less garbage per GET (docs/performance.md,
      // "apiserver"). Anything else, a 401 included, takes the awaited path.
      const known = authenticator.authenticateKnown?.(request, ctx);
      return known ? proceed(ctx, withAuthenticatedGroup(known).user) : awaited(ctx, request);
    };
  };
}
