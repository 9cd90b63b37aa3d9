import type { TLSSocket } from 'node:tls';
import { newUnauthorized } from '@plat/api-model';
import { withAuthenticatedGroup, type AuthenticationRequest, type Authenticator } from '@plat/auth';
import type { Filter, RequestContext } from '../context.js';
import type { ServerLogger } from '../logger.js';
import { writeError } from '../response.js';

/** Headers with repeated values kept apart (names lower-cased), as authenticators and impersonation want them. */
export function distinctHeaders(ctx: RequestContext): Record<string, string[]> {
  const raw = (ctx.req as unknown as { rawHeaders?: string[] }).rawHeaders ?? [];
  const out: Record<string, string[]> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (name.startsWith(':')) continue; // HTTP/2 pseudo-headers
    (out[name] ??= []).push(raw[i + 1]!);
  }
  return out;
}

// A connection's client certificate never changes: read it (an expensive call) once per socket.
const tlsInfoCache = new WeakMap<object, AuthenticationRequest['tls']>();

function tlsInfo(ctx: RequestContext): AuthenticationRequest['tls'] {
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
 * Runs the authenticator: a recognised user continues (with `system:authenticated`), anything
 * else is 401 Unauthorized. The Authorization header is not passed further down.
 */
export function withAuthentication(authenticator: Authenticator, logger: ServerLogger): Filter {
  return (next) => async (ctx) => {
    const headers: Record<string, string | string[] | undefined> = distinctHeaders(ctx);
    let user;
    try {
      const result = await authenticator.authenticate({
        method: ctx.method,
        path: ctx.url.pathname,
        headers,
        tls: tlsInfo(ctx),
        signal: ctx.signal,
      });
      user = result ? withAuthenticatedGroup(result).user : undefined;
    } catch (err) {
      logger.info('Unable to authenticate the request', { err: (err as Error).message, auditID: ctx.auditId }, 2);
    }
    if (!user) {
      writeError(ctx, newUnauthorized('Unauthorized'));
      return;
    }
    delete ctx.req.headers.authorization;
    ctx.user = user;
    ctx.authenticatedUser = user;
    await next(ctx);
  };
}
