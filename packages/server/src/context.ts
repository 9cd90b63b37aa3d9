import type { IncomingHttpHeaders } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { UserInfo } from '@plat/auth';
import type { RequestInfo } from './request-info.js';

/** The parts of an HTTP/1.1 or HTTP/2 (compatibility API) request the server reads. */
export interface IncomingRequest extends AsyncIterable<Buffer> {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
  socket: TLSSocket | { remoteAddress?: string; remotePort?: number };
  httpVersion: string;
  on(event: 'close' | 'aborted', listener: () => void): unknown;
  destroy(err?: Error): unknown;
}

/** The parts of an HTTP/1.1 or HTTP/2 (compatibility API) response the server writes. */
export interface OutgoingResponse {
  statusCode: number;
  readonly headersSent: boolean;
  readonly writableEnded: boolean;
  setHeader(name: string, value: string | number | readonly string[]): unknown;
  getHeader(name: string): unknown;
  removeHeader(name: string): void;
  writeHead(statusCode: number): unknown;
  write(chunk: string | Buffer, cb?: (err?: Error | null) => void): boolean;
  end(chunk?: string | Buffer, cb?: () => void): unknown;
  on(event: 'close' | 'finish' | 'drain', listener: () => void): unknown;
  once(event: 'close' | 'finish' | 'drain', listener: () => void): unknown;
  flushHeaders?(): void;
  destroy?(err?: Error): unknown;
}

/** One request as it walks down the filter chain. */
export interface RequestContext {
  req: IncomingRequest;
  res: OutgoingResponse;
  method: string;
  url: URL;
  query: URLSearchParams;
  info: RequestInfo;
  /** The authenticated (and possibly impersonated) user, set by the authentication filter. */
  user?: UserInfo;
  /** The user before impersonation, for logs. */
  authenticatedUser?: UserInfo;
  /** Aborted when the client goes away, the request times out or the server shuts down. */
  signal: AbortSignal;
  abort(reason: Error): void;
  /** Sent as `Warning: 299 - "..."` headers with the response. */
  warnings: string[];
  auditId: string;
  startTime: bigint;
  /** Watches and other streams: not subject to the request timeout or in-flight limits. */
  longRunning: boolean;
}

export type Handler = (ctx: RequestContext) => Promise<void>;
export type Filter = (next: Handler) => Handler;
