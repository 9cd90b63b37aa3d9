import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { RestClient } from '@plat/client';
import { encodeTrustAnchors } from './encode-trust-anchors.js';
import { filterTrustAnchors, type TrustAnchorFilter } from './filter-trust-anchors.js';
import { defaultSpiffeRefreshHintSeconds, nextSpiffeSequence } from './spiffe-bundle.js';
import type { TrustAnchorSelection } from './trust-anchor-selection.js';
import type { TrustAnchors } from './trust-anchors.js';
import { watchTrustAnchors, type WatchTrustAnchorsOptions } from './watch-trust-anchors.js';

export interface SpiffeFederationServerOptions extends Omit<WatchTrustAnchorsOptions, 'onChange'> {
  /** Where to listen; port 0 picks a free one. */
  host?: string;
  port: number;
  /** The server's certificate chain and key (PEM): a certificate the federation clients trust (`https_web`: Web PKI). */
  cert: string | Buffer;
  key: string | Buffer;
  /** The URL path of the bundle (default `/`); other paths are 404. */
  path?: string;
  /** `spiffe_refresh_hint` in seconds (default 300). */
  refreshHintSeconds?: number;
  /** The consumer's filter (the apiserver never filters): expired anchors left out, anchors expiring soon warned about. */
  filter?: TrustAnchorFilter;
  onWarning?: (warning: string) => void;
  /** Called each time a new bundle is served. */
  onChange?: (bundle: ServedSpiffeBundle) => void;
}

export interface ServedSpiffeBundle {
  sequence: number;
  anchors: TrustAnchors;
  body: Buffer;
  etag: string;
  lastModified: Date;
}

export interface SpiffeFederationServer {
  /** `https://host:port/path` as listened on. */
  url: string;
  port: number;
  current(): ServedSpiffeBundle;
  /** Resolves when the signal aborts and the server has closed; rejects with the watch's fatal error. */
  done: Promise<void>;
}

const maxTimerMs = 2 ** 31 - 1;

/**
 * Serves the anchors of a selection as a SPIFFE bundle endpoint with the `https_web` profile
 * (SPIFFE Federation, section 5.2.1): GET (and HEAD) of the path answers the current bundle as
 * UTF-8 `application/json`, no client authentication asked for, TLS 1.2 or newer. The bundle
 * follows the anchors through `watchTrustAnchors`; each change of what is served increases
 * `spiffe_sequence` (`nextSpiffeSequence`). Answers carry a strong `ETag` and `Last-Modified`
 * with `Cache-Control: no-cache`: caches revalidate every time (a 304 when nothing changed), so a
 * client polling at the refresh hint never reads a bundle older than its poll.
 *
 * Resolves once the first anchors are known and the server listens.
 */
export async function startSpiffeFederationServer(client: RestClient, selection: TrustAnchorSelection, options: SpiffeFederationServerOptions): Promise<SpiffeFederationServer> {
  const { host = '127.0.0.1', port, cert, key, path = '/', refreshHintSeconds = defaultSpiffeRefreshHintSeconds, filter, onWarning, onChange, signal, ...watchOptions } = options;
  let served: ServedSpiffeBundle | undefined;
  let timer: NodeJS.Timeout | undefined;
  let raw: TrustAnchors | undefined;
  let firstResolve!: () => void;
  const first = new Promise<void>((r) => (firstResolve = r));

  const publish = async () => {
    clearTimeout(timer);
    const filtered = filterTrustAnchors(raw!, filter);
    if (filtered.nextExpiry) {
      timer = setTimeout(() => void schedule().catch((err: unknown) => options.onError?.(err as Error, {})), Math.min(Math.max(filtered.nextExpiry.getTime() - Date.now(), 0), maxTimerMs));
      timer.unref();
    }
    if (served && served.anchors.digest === filtered.anchors.digest) return;
    for (const w of filtered.warnings) onWarning?.(w);
    const sequence = nextSpiffeSequence(served?.sequence);
    const body = Buffer.from(await encodeTrustAnchors(filtered.anchors, 'spiffe', { spiffeSequence: sequence, spiffeRefreshHintSeconds: refreshHintSeconds }));
    served = { sequence, anchors: filtered.anchors, body, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`, lastModified: new Date() };
    onChange?.(served);
    firstResolve();
  };

  // Changes and expiry timers publish one at a time, in order.
  let queue = Promise.resolve();
  const schedule = () => (queue = queue.then(publish));

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'https://bundle.invalid');
    if (url.pathname !== path) return plain(res, 404, 'not found\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return plain(res, 405, 'method not allowed\n');
    }
    const b = served!;
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('ETag', b.etag);
    res.setHeader('Last-Modified', b.lastModified.toUTCString());
    const match = req.headers['if-none-match'];
    if (match !== undefined && match.split(',').some((t) => t.trim() === b.etag || t.trim() === '*')) {
      res.statusCode = 304;
      return res.end();
    }
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Content-Length', b.body.length);
    res.statusCode = 200;
    res.end(req.method === 'HEAD' ? undefined : b.body);
  };

  const stop = new AbortController();
  const watchSignal = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
  const watching = watchTrustAnchors(client, selection, {
    ...watchOptions,
    signal: watchSignal,
    onChange: (anchors) => {
      raw = anchors;
      return schedule();
    },
  });
  await Promise.race([first, watching]);
  if (!served) {
    // The watch ended (aborted or failed) before the first anchors.
    await watching;
    throw watchSignal.reason;
  }
  // Mozilla's intermediate configuration: TLS 1.2 and 1.3 (SPIFFE Federation, section 5).
  const server: Server = createServer({ cert, key, minVersion: 'TLSv1.2' }, handle);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    // Nothing to serve on: the watch ends with the server.
    stop.abort();
    await watching.catch(() => undefined);
    clearTimeout(timer);
    throw err;
  }
  const address = server.address() as AddressInfo;
  const close = () => new Promise<void>((r) => {
    server.close(() => r());
    server.closeAllConnections();
  });
  const done = watching.then(
    async () => {
      clearTimeout(timer);
      await close();
    },
    async (err: unknown) => {
      clearTimeout(timer);
      await close();
      throw err;
    },
  );
  const hostText = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { url: `https://${hostText}:${address.port}${path}`, port: address.port, current: () => served!, done };
}

function plain(res: ServerResponse, code: number, text: string): void {
  res.statusCode = code;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.end(text);
}
