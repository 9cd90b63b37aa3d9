import * as https from 'node:https';
import * as http2 from 'node:http2';
import type { Socket } from 'node:net';
// Imported, not the global: `performance` is an accessor on Node's global object (serving.ts).
import { performance } from 'node:perf_hooks';
import { StatusError, newBadRequest } from '@plat/api-model';
import type { IncomingRequest, OutgoingResponse } from './context.js';

/**
 * What one connection may cost: header sizes and the timeouts that close slow or idle clients.
 * The defaults are kube-apiserver's (k8s.io/apiserver's secure serving) where it has one.
 */
export interface ConnectionLimits {
  /** Request line and headers (HTTP/1.1), or the header list (HTTP/2). Default 1 MiB (kube's MaxHeaderBytes). */
  maxRequestHeaderBytes: number;
  /** A request's headers must arrive within this time, or the connection closes. Default 32 s (kube's ReadHeaderTimeout). */
  requestHeaderTimeoutMs: number;
  /** A connection with no request in progress closes after this time. Default 90 s (kube's IdleTimeout, HTTP/1.1 and HTTP/2). */
  idleTimeoutMs: number;
  /** The TLS handshake must finish within this time. Default 10 s. */
  tlsHandshakeTimeoutMs: number;
  /**
   * The whole request (headers and body) must arrive within this time (0 = no bound). The server
   * derives it from --request-timeout: a body still arriving after it is from a client that
   * already got its 504.
   */
  requestReceiveTimeoutMs: number;
  /** Concurrent streams per HTTP/2 connection. Default 100 (kube's --http2-max-streams-per-connection). */
  http2MaxStreamsPerConnection: number;
}

export const defaultConnectionLimits: Omit<ConnectionLimits, 'requestReceiveTimeoutMs'> = {
  maxRequestHeaderBytes: 1024 * 1024,
  requestHeaderTimeoutMs: 32_000,
  idleTimeoutMs: 90_000,
  tlsHandshakeTimeoutMs: 10_000,
  http2MaxStreamsPerConnection: 100,
};

export interface SecureServingOptions {
  tls: { cert: string | Buffer; key: string | Buffer; clientCA?: string | Buffer };
  /** HTTP/2 (ALPN h2) next to HTTP/1.1. */
  http2: boolean;
  limits: ConnectionLimits;
}

export interface SecureServer {
  server: https.Server | http2.Http2SecureServer;
  /** Open TLS connections (to cut at the end of a shutdown). */
  sockets: Set<Socket>;
  /** Open HTTP/2 sessions (to send GOAWAY at shutdown). */
  sessions: Set<http2.ServerHttp2Session>;
  /** Stops the idle sweep; the server itself is closed by its owner. */
  stop(): void;
}

/**
 * HPACK counts 32 bytes of overhead per header field (RFC 7541, 4.1); Go's HTTP/2 server checks
 * the same sum against its limit.
 */
const headerFieldOverhead = 32;

/**
 * How many header fields an HTTP/2 request may carry. Node's default (128) resets larger
 * requests; Kubernetes bounds headers by bytes only, and the byte bound caps the count anyway.
 */
const maxHeaderListPairs = 32_768;

/** A Status for an answer written before any request context exists. */
function statusBody(err: StatusError): string {
  return JSON.stringify(err.status);
}

function headerFieldsTooLarge(limit: number): StatusError {
  // Kubernetes has no StatusReason for 431 (Go answers it in plain text): the reason stays empty.
  return new StatusError({ code: 431, reason: '', message: `Request Header Fields Too Large: the request line and headers exceed the limit of ${limit} bytes` });
}

/** The size of an HTTP/2 header list as HPACK counts it (pseudo-headers included). */
function headerListSize(rawHeaders: readonly string[]): number {
  let size = 0;
  for (let i = 0; i < rawHeaders.length; i++) size += rawHeaders[i]!.length;
  return size + (rawHeaders.length / 2) * headerFieldOverhead;
}

/** Writes a whole HTTP/1.1 answer on a socket that has no request object (a parse failure). */
function answerRaw(socket: Socket, code: number, text: string, err: StatusError): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = statusBody(err);
  socket.end(
    `HTTP/1.1 ${code} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  // A client that does not read the answer must not hold the socket.
  setTimeout(() => socket.destroy(), 5_000).unref();
}

/**
 * The HTTPS listener: HTTP/2 with HTTP/1.1 fallback (or HTTP/1.1 alone), client certificates
 * requested but checked by the authenticator, and every connection bounded by `limits`. Headers
 * over the limit get 431 with a Status (HTTP/1.1 and HTTP/2 alike), malformed HTTP/1.1 gets 400;
 * slow headers, slow handshakes and idle connections are closed.
 */
export function createSecureServer(
  opts: SecureServingOptions,
  onRequest: (req: IncomingRequest, res: OutgoingResponse) => void,
): SecureServer {
  const { limits } = opts;
  const tlsOptions = {
    cert: opts.tls.cert,
    key: opts.tls.key,
    ca: opts.tls.clientCA,
    requestCert: true,
    rejectUnauthorized: false,
    minVersion: 'TLSv1.2' as const,
    handshakeTimeout: limits.tlsHandshakeTimeoutMs,
  };
  const http1Limits = {
    maxHeaderSize: limits.maxRequestHeaderBytes,
    headersTimeout: limits.requestHeaderTimeoutMs,
    requestTimeout: limits.requestReceiveTimeoutMs,
    keepAliveTimeout: limits.idleTimeoutMs,
    // Kubernetes bounds headers by bytes only (no count): Node's default would drop those past 2000.
    maxHeadersCount: 0,
    // How often Node checks the two timeouts above: they close within a second of expiring.
    connectionsCheckingInterval: 1_000,
  };
  const tooLarge = headerFieldsTooLarge(limits.maxRequestHeaderBytes);
  const server: https.Server | http2.Http2SecureServer = opts.http2
    ? http2.createSecureServer(
        {
          ...tlsOptions,
          allowHTTP1: true,
          maxHeaderListPairs,
          settings: { maxConcurrentStreams: limits.http2MaxStreamsPerConnection, maxHeaderListSize: limits.maxRequestHeaderBytes },
        },
        (req, res) => {
          // llhttp bounds HTTP/1.1 headers; an HTTP/2 header list is measured here (Node does
          // not hold clients to the maxHeaderListSize it advertises).
          if (req.httpVersion === '2.0' && headerListSize(req.rawHeaders) > limits.maxRequestHeaderBytes) {
            const body = statusBody(tooLarge);
            res.writeHead(431, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
            res.end(body);
            return;
          }
          onRequest(req as unknown as IncomingRequest, res as unknown as OutgoingResponse);
        },
      )
    : https.createServer(tlsOptions, (req, res) => onRequest(req as unknown as IncomingRequest, res as unknown as OutgoingResponse));
  // As properties: the HTTP/1.1 fallback of the HTTP/2 server reads them there (it ignores them
  // as options), and Node reads connectionsCheckingInterval when the server starts listening.
  Object.assign(server, http1Limits);

  const sockets = new Set<Socket>();
  server.on('secureConnection', (socket: Socket) => {
    // No Nagle delay: an answer goes out at once even while an earlier one is unacknowledged
    // (node:https does this for its own servers; the HTTP/2 server with HTTP/1.1 fallback does not).
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  // HTTP/2 sessions without open streams close after the idle timeout (GOAWAY), as Go's
  // http2.Server IdleTimeout. Node's own session timeout counts frames, so it would also cut a
  // quiet watch; one sweep a second checks instead, at no cost per stream but a counter.
  const sessions = new Set<http2.ServerHttp2Session>();
  const idle = new WeakMap<http2.ServerHttp2Session, { open: number; since: number }>();
  server.on('session', (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    idle.set(session, { open: 0, since: performance.now() });
    session.on('close', () => sessions.delete(session));
  });
  server.on('stream', (stream: http2.ServerHttp2Stream) => {
    const state = idle.get(stream.session as http2.ServerHttp2Session);
    if (!state) return;
    state.open++;
    stream.once('close', () => {
      state.open--;
      state.since = performance.now();
    });
  });
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const s of sessions) {
      const state = idle.get(s);
      if (state && state.open === 0 && now - state.since >= limits.idleTimeoutMs && !s.closed) s.close();
    }
  }, Math.min(1_000, limits.idleTimeoutMs));
  sweep.unref();

  // TLS handshake failures, slow handshakes and resets must not take the server down.
  server.on('tlsClientError', () => undefined);
  // With a listener, Node leaves a malformed or timed-out HTTP/1.1 connection to us.
  server.on('clientError', (err: Error & { code?: string }, socket: Socket) => {
    if (err.code === 'HPE_HEADER_OVERFLOW') answerRaw(socket, 431, 'Request Header Fields Too Large', tooLarge);
    else if (err.code?.startsWith('HPE_')) answerRaw(socket, 400, 'Bad Request', newBadRequest(`malformed HTTP request: ${err.message}`));
    // A header timeout (ERR_HTTP_REQUEST_TIMEOUT) or a reset: close without an answer, as Go does.
    else socket.destroy();
  });

  return {
    server,
    sockets,
    sessions,
    stop() {
      clearInterval(sweep);
    },
  };
}
