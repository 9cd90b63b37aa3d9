import * as net from 'node:net';
import type { Duplex } from 'node:stream';

export interface DialOptions {
  signal?: AbortSignal;
  /** Milliseconds to wait for the tunnel (or direct connection) to be established. */
  timeoutMs?: number;
}

/**
 * Opens a byte stream to `host:port`, directly or through a tunnel server. The stream is plain
 * TCP payload: TLS to the target, when wanted, runs on top of it (see undici-connector.ts).
 */
export interface Dialer {
  /** The egress selection this dialer serves, for errors and metrics. */
  readonly selection: string;
  /** `direct`, or the proxy address, for errors and logs. */
  readonly via: string;
  dial(host: string, port: number, opts?: DialOptions): Promise<Duplex>;
}

/** Runs `start` with an AbortSignal that fires on the caller's signal or after timeoutMs. */
export async function withDialDeadline<T>(
  opts: DialOptions | undefined,
  start: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(opts?.signal?.reason);
  if (opts?.signal?.aborted) controller.abort(opts.signal.reason);
  opts?.signal?.addEventListener('abort', onAbort, { once: true });
  const timer =
    opts?.timeoutMs && opts.timeoutMs > 0
      ? setTimeout(() => controller.abort(new Error(`timed out after ${opts.timeoutMs}ms`)), opts.timeoutMs)
      : undefined;
  try {
    return await start(controller.signal);
  } finally {
    if (timer) clearTimeout(timer);
    opts?.signal?.removeEventListener('abort', onAbort);
  }
}

/** Connects a TCP or unix socket, honouring the signal. */
export function connectSocket(target: net.NetConnectOpts, signal: AbortSignal): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      return;
    }
    const socket = net.connect(target);
    const onAbort = () => {
      socket.destroy();
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => {
      signal.removeEventListener('abort', onAbort);
      socket.removeListener('error', reject);
      resolve(socket);
    });
    socket.once('error', (err) => {
      signal.removeEventListener('abort', onAbort);
      reject(err);
    });
  });
}

/** No egress configuration (or proxyProtocol Direct): a plain TCP connection. */
export class DirectDialer implements Dialer {
  readonly via = 'direct';
  constructor(readonly selection: string) {}

  dial(host: string, port: number, opts?: DialOptions): Promise<Duplex> {
    return withDialDeadline(opts, (signal) => connectSocket({ host, port }, signal));
  }
}
