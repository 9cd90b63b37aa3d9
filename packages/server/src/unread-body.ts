import type { RequestContext } from './context.js';
import { requestHeader } from './request-header.js';

/**
 * How long an HTTP/1.1 connection lingers, half-closed, after answering a request whose body is
 * still arriving: Go's rstAvoidanceDelay (net/http/server.go, closeWriteAndWait), which
 * kube-apiserver serves with.
 */
export const unreadBodyLingerMs = 500;

/**
 * Whether the request says a body follows its head (RFC 9112 6.3: a Transfer-Encoding, or a
 * Content-Length other than 0). A request without one is complete once its head is parsed, but
 * Node marks it so only after the 'request' event: a handler that answers within that event (a
 * request whose checks the caches answer at once and whose answer needs no storage, such as
 * `/version`) sees `complete` false, and must not close a
 * connection that has pipelined requests after it.
 */
function announcesBody(ctx: RequestContext): boolean {
  return requestHeader(ctx.req, 'transfer-encoding') !== undefined || (requestHeader(ctx.req, 'content-length')?.trim() ?? '0') !== '0';
}

/** The parts of Node's HTTP/1.1 request and socket this reads. */
interface Http1RequestParts {
  /** The parser has seen the whole message (what the handler did not read is in memory). */
  complete?: boolean;
  readableEnded?: boolean;
  socket?: { destroySoon?: () => void; end(): unknown; destroy(): unknown; readonly destroyed: boolean };
}

/**
 * Prepares the answer to an HTTP/1.1 request whose body is still arriving and will not be read
 * to its end (a 413 over the body limit, or an error before the body was needed), so that a
 * client still uploading reads the answer instead of a reset, and the server reads no more of
 * the body: the answer says `Connection: close`; once it is written the connection half-closes
 * (TLS close_notify and FIN), reads nothing more, and closes `unreadBodyLingerMs` later. Closing
 * at once with unread data sends a TCP RST, and the client's kernel may drop the answer it has
 * not read yet (Go's closeWriteAndWait). Go first reads up to 256 KiB more
 * (maxPostHandlerReadBytes) hoping to keep the connection; here only a body already received
 * keeps it (Node drops the rest from memory), so no read is ever waited for.
 *
 * HTTP/2 needs nothing here: Node's compatibility layer ends the stream of such an answer with
 * RST_STREAM NO_ERROR, as Go's http2 server does (RFC 9113 8.1).
 *
 * Called before the answer's head is written.
 */
export function closeAfterUnreadBody(ctx: RequestContext): void {
  if (ctx.req.httpVersion === '2.0') return;
  const req = ctx.req as unknown as Http1RequestParts;
  const socket = req.socket;
  if (req.readableEnded || req.complete !== false || !socket || !announcesBody(ctx)) return;
  ctx.res.setHeader('Connection', 'close');
  // Node ends an answer marked `Connection: close` with socket.destroySoon(): end, then destroy
  // as soon as the end is flushed, which is the reset this avoids. This socket closes later.
  socket.destroySoon = () => {
    socket.end();
    setTimeout(() => socket.destroyed || socket.destroy(), unreadBodyLingerMs).unref();
  };
}
