import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
// `process` (and `performance`) are accessors on Node's global object: each read of the global runs
// V8's LoadGlobalIC and calls its getter, 15-27 ns even in optimised code, where an import binding
// is read in 4-7 (microbenchmark, load 4; perf-native.mjs put `LoadGlobalIC` and its trampoline at
// 0.44-0.46 µs of a GET, the bare server 0; docs/performance.md "apiserver", fifth round).
import { hrtime } from 'node:process';
import { ServerRequestContext, splitRequestTarget, type Handler, type IncomingRequest, type OutgoingResponse } from './context.js';
import type { CompletedConfig } from './config.js';
import { upperCaseMethod } from './request-method.js';
import { newRequestUUID } from './request-uuid.js';
import { writeError } from './response.js';
import { createSecureServer } from './secure-serving.js';

export interface ServerAddress {
  host: string;
  port: number;
  url: string;
}

/**
 * What graceful shutdown needs to know of one server (kube's lifecycle signals and wait groups):
 * whether it is shutting down, how many requests are in flight, which watches to end. One per
 * server; the request accounting filter counts, /readyz and serving read.
 */
export class ServerLifecycle {
  shuttingDown = false;
  inFlight = 0;
  address: ServerAddress | null = null;
  private readonly watches = new Set<() => void>();
  private drained?: () => void;

  /** Registers a watch so shutdown can end it; returns the unregister function. */
  trackWatch(stop: () => void): () => void {
    this.watches.add(stop);
    return () => this.watches.delete(stop);
  }

  requestStarted(): void {
    this.inFlight++;
  }

  requestFinished(): void {
    this.inFlight--;
    if (this.inFlight === 0 && this.drained) this.drained();
  }

  endWatches(): void {
    for (const stop of [...this.watches]) stop();
  }

  /** Resolves when no request is in flight, or after `timeoutMs`. */
  async drain(timeoutMs: number): Promise<void> {
    if (this.inFlight === 0) return;
    await Promise.race([
      new Promise<void>((resolve) => (this.drained = resolve)),
      new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref()),
    ]);
  }
}

export interface Serving {
  listen(opts?: { host?: string; port?: number }): Promise<ServerAddress>;
  close(): Promise<void>;
}

/**
 * Serving: the TLS listener (HTTP/1.1 and h2, secure-serving.ts) handing each request to the
 * chain as a request context, and graceful shutdown (kube's preShutdown → drain → GOAWAY order).
 */
export function serve(config: CompletedConfig, handler: Handler): Serving {
  const { lifecycle, limits, logger } = config;

  const onRequest = (req: IncomingRequest, res: OutgoingResponse): void => {
    const method = upperCaseMethod(req.method ?? 'GET');
    const ctx = new ServerRequestContext(req, res, method, splitRequestTarget(req.url ?? '/'), newRequestUUID(), hrtime.bigint());
    if (lifecycle.shuttingDown && req.httpVersion.startsWith('1')) res.setHeader('Connection', 'close');
    handler(ctx).catch((err: unknown) => {
      logger.error('unhandled request error', { err: String(err) });
      if (!res.headersSent) writeError(ctx, err);
    });
  };

  // Made by listen(): until then the server serves only its loopback client (loopback.ts), and
  // needs no TLS material.
  let secure: ReturnType<typeof createSecureServer> | undefined;
  const secureServer = () => {
    if (!config.tls) throw new Error('the server has no TLS serving certificate (the tls option) to listen with');
    return (secure ??= createSecureServer(
      {
        tls: config.tls,
        http2: config.http2,
        limits: {
          ...limits,
          // A body still arriving after --request-timeout belongs to a request that got its 504.
          requestReceiveTimeoutMs: limits.requestTimeoutMs > 0 ? limits.requestHeaderTimeoutMs + limits.requestTimeoutMs : 0,
        },
      },
      onRequest,
    ));
  };

  let closing: Promise<void> | undefined;
  return {
    async listen(opts = {}) {
      const { server } = secureServer();
      const host = opts.host ?? '127.0.0.1';
      server.listen(opts.port ?? 6443, host);
      await once(server, 'listening');
      const addr = server.address() as AddressInfo;
      const urlHost = addr.family === 'IPv6' || addr.address.includes(':') ? `[${addr.address}]` : addr.address;
      lifecycle.address = { host: addr.address, port: addr.port, url: `https://${urlHost}:${addr.port}` };
      return lifecycle.address;
    },
    close() {
      closing ??= (async () => {
        lifecycle.shuttingDown = true;
        if (config.shutdownDelayMs) await new Promise((r) => setTimeout(r, config.shutdownDelayMs));
        if (!secure) {
          // Never listened: only the loopback client's requests to end and drain.
          lifecycle.endWatches();
          await lifecycle.drain(config.shutdownTimeoutMs);
          return;
        }
        const { server, sockets, sessions, stop: stopServing } = secure;
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        lifecycle.endWatches();
        await lifecycle.drain(config.shutdownTimeoutMs);
        // GOAWAY only after the streams ended: clients fail streams still open when it arrives.
        for (const s of sessions) s.close();
        if (sessions.size > 0) {
          await Promise.race([
            Promise.all([...sessions].map((s) => (s.destroyed ? undefined : once(s, 'close')))),
            new Promise<void>((resolve) => setTimeout(resolve, 1000).unref()),
          ]);
        }
        for (const s of sockets) s.destroy();
        stopServing();
        await closed;
        // Nothing listens any more: address() answers null, as before listen().
        lifecycle.address = null;
      })();
      return closing;
    },
  };
}
