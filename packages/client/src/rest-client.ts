import { JsonDecodeError, decodeJson, encodeJson } from '@plat/api-model/json';
import type { Dispatcher } from 'undici';
import { ClientError } from './client-error.js';
import type { RestConfig } from './rest-config.js';
import { readWatchEvents, type WatchEvent } from './watch-events.js';

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';
  /** Path below the server URL, starting with `/`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  accept?: string;
  signal?: AbortSignal;
}

export interface RestResponse<T = unknown> {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  warnings: string[];
}

export interface WatchOptions {
  /** Path below the server URL, starting with `/`; `watch=true` is added to the query. */
  path: string;
  query?: RequestOptions['query'];
  signal?: AbortSignal;
  /** Ends the watch with a ClientError `Timeout` when no event (bookmarks included) arrives for this long; 0: never. */
  idleTimeoutMs?: number;
  /** Largest single event accepted, in bytes (default 16 MiB); a larger one ends the watch with `DecodeFailed`. */
  maxEventBytes?: number;
}

export interface RestClientOptions {
  /** Called with the text of each `Warning` header (kubectl prints `Warning: <text>`). */
  onWarning?: (text: string) => void;
  /** Upper bound of 429 retries for idempotent calls (client-go uses 10). */
  maxRetries?: number;
  /** Longest single Retry-After honoured, in seconds. */
  maxRetryAfterSeconds?: number;
}

const idempotent = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);

type Undici = typeof import('undici');

/** undici, loaded on the first request; a bundler may hand the CommonJS package over as `default`. */
async function loadUndici(): Promise<Undici> {
  const mod = (await import('undici')) as Undici & { default?: Undici };
  return typeof mod.Agent === 'function' ? mod : (mod.default as Undici);
}

/** Parses RFC 7234 warn-values (`299 - "text" "date"`) and returns the texts. */
export function parseWarningHeader(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  const out: string[] = [];
  for (const header of Array.isArray(value) ? value : [value]) {
    const re = /\s*(\d{3})\s+(\S+)\s+"((?:[^"\\]|\\.)*)"(?:\s+"[^"]*")?\s*(?:,|$)/gy;
    let m: RegExpExecArray | null;
    let any = false;
    while (re.lastIndex < header.length && (m = re.exec(header))) {
      any = true;
      if (m[1] === '299') out.push(m[3].replace(/\\(.)/g, '$1'));
    }
    if (!any && header.trim()) out.push(header.trim());
  }
  return out;
}

/**
 * A REST client for one server on an undici Agent: keep-alive, HTTP/2 when the server offers it
 * through ALPN, gzip responses, credentials and impersonation headers, Status errors decoded,
 * Warning headers surfaced and 429 Retry-After honoured for idempotent calls.
 */
export class RestClient {
  readonly config: RestConfig;
  private readonly options: RestClientOptions;
  private dispatcher?: Dispatcher;

  constructor(config: RestConfig, options: RestClientOptions = {}) {
    this.config = config;
    this.options = options;
  }

  private async agent(): Promise<Dispatcher> {
    if (this.dispatcher) return this.dispatcher;
    const { Agent } = await loadUndici();
    const c = this.config;
    this.dispatcher = new Agent({
      allowH2: true,
      keepAliveTimeout: 30_000,
      connect: {
        ca: c.ca,
        cert: c.cert,
        key: c.key,
        rejectUnauthorized: !c.insecureSkipTlsVerify,
        servername: c.tlsServerName,
      },
    });
    return this.dispatcher;
  }

  private headers(opts: RequestOptions): Record<string, string | string[]> {
    const c = this.config;
    const h: Record<string, string | string[]> = {
      accept: opts.accept ?? 'application/json',
      'user-agent': c.userAgent,
    };
    if (!c.disableCompression) h['accept-encoding'] = 'gzip';
    if (c.token) h.authorization = `Bearer ${c.token}`;
    else if (c.username !== undefined || c.password !== undefined) {
      h.authorization = `Basic ${Buffer.from(`${c.username ?? ''}:${c.password ?? ''}`).toString('base64')}`;
    }
    if (c.impersonate?.user) {
      h['impersonate-user'] = c.impersonate.user;
      if (c.impersonate.groups.length) h['impersonate-group'] = c.impersonate.groups;
      if (c.impersonate.uid) h['impersonate-uid'] = c.impersonate.uid;
      for (const [k, v] of Object.entries(c.impersonate.extra)) h[`impersonate-extra-${encodeURIComponent(k)}`] = v;
    }
    if (opts.body !== undefined) h['content-type'] = opts.contentType ?? 'application/json';
    return h;
  }

  /** The URL of a request; `requestTimeout: false` leaves out the `timeout` parameter (watches end by `timeoutSeconds`). */
  url(path: string, query?: RequestOptions['query'], options: { requestTimeout?: boolean } = {}): string {
    const u = new URL(this.config.server + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') u.searchParams.set(k, String(v));
    if (options.requestTimeout !== false && this.config.timeoutMs > 0 && !u.searchParams.has('timeout')) {
      u.searchParams.set('timeout', `${Math.ceil(this.config.timeoutMs / 1000)}s`);
    }
    return u.toString();
  }

  /** Sends one request; resolves with the decoded JSON body, rejects with a StatusError or ClientError. */
  async request<T = unknown>(opts: RequestOptions): Promise<RestResponse<T>> {
    const method = opts.method ?? 'GET';
    const maxRetries = idempotent.has(method) ? (this.options.maxRetries ?? 10) : 0;
    const url = this.url(opts.path, opts.query);
    const payload = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : encodeJson(opts.body);
    const dispatcher = await this.agent();
    const { request } = await loadUndici();
    for (let attempt = 0; ; attempt++) {
      const signals = [opts.signal, this.config.timeoutMs > 0 ? AbortSignal.timeout(this.config.timeoutMs) : undefined].filter(
        (s): s is AbortSignal => s !== undefined,
      );
      let res: Dispatcher.ResponseData;
      try {
        res = await request(url, {
          method,
          headers: this.headers(opts),
          body: payload,
          dispatcher,
          signal: signals.length ? AbortSignal.any(signals) : undefined,
        });
      } catch (err) {
        throw this.transportError(err);
      }
      let raw: Buffer;
      try {
        raw = Buffer.from(await res.body.arrayBuffer());
      } catch (err) {
        throw this.transportError(err);
      }
      // zlib (and the streams it loads) only when a response is compressed: `patch --local` starts without it.
      if (res.headers['content-encoding'] === 'gzip' && raw.length > 0) raw = (await import('node:zlib')).gunzipSync(raw);
      const text = raw.toString('utf8');
      const warnings = parseWarningHeader(res.headers.warning);
      for (const w of warnings) this.options.onWarning?.(w);
      if (res.statusCode === 429 && attempt < maxRetries) {
        const after = Number(res.headers['retry-after']);
        if (Number.isFinite(after) && after >= 0) {
          await new Promise((r) => setTimeout(r, Math.min(after, this.options.maxRetryAfterSeconds ?? 10) * 1000));
          continue;
        }
      }
      if (res.statusCode < 200 || res.statusCode > 299) {
        // Loaded on the error path only: it brings @plat/api-model and zod.
        const { decodeErrorResponse } = await import('./status-decoding.js');
        throw decodeErrorResponse(res.statusCode, text, method);
      }
      let body: unknown = text;
      const ctype = String(res.headers['content-type'] ?? '');
      if (text && (ctype.includes('json') || /^\s*[[{]/.test(text))) {
        try {
          // Integers beyond 2^53 stay exact (bigint), as client-go keeps them int64.
          body = decodeJson(text).value;
        } catch (err) {
          if (!(err instanceof JsonDecodeError)) throw err;
          throw new ClientError('DecodeFailed', `unable to decode the response from ${method} ${url}: ${err.code === 'depth' ? err.message : 'not JSON'}`);
        }
      }
      return { statusCode: res.statusCode, headers: res.headers, body: body as T, warnings };
    }
  }

  /**
   * Opens a watch and yields its events (`{ type, object }`, BOOKMARK and ERROR included) as they
   * arrive, until the server ends the stream (for example at `timeoutSeconds`), the signal aborts
   * it, or no event arrives within `idleTimeoutMs`. A non-2xx answer rejects before the first event
   * with a StatusError, as `request` does. The client's request timeout bounds only the wait for
   * the response headers: a watch lasts as long as the server keeps it open.
   */
  async *watch<T = unknown>(opts: WatchOptions): AsyncGenerator<WatchEvent<T>> {
    const url = this.url(opts.path, { ...opts.query, watch: true }, { requestTimeout: false });
    const dispatcher = await this.agent();
    const { request } = await loadUndici();
    const controller = new AbortController();
    const abort = () => controller.abort(opts.signal?.reason);
    if (opts.signal?.aborted) abort();
    opts.signal?.addEventListener('abort', abort, { once: true });
    const headersTimer = this.config.timeoutMs > 0 ? setTimeout(() => controller.abort(new DOMException('headers timeout', 'TimeoutError')), this.config.timeoutMs) : undefined;
    let idle: ReturnType<typeof setTimeout> | undefined;
    let idleFired = false;
    const armIdle = () => {
      if (!opts.idleTimeoutMs) return;
      clearTimeout(idle);
      idle = setTimeout(() => {
        idleFired = true;
        controller.abort();
      }, opts.idleTimeoutMs);
    };
    let res: Dispatcher.ResponseData | undefined;
    try {
      try {
        // bodyTimeout 0: the idle timer above decides when a quiet watch is dead, per event.
        res = await request(url, { method: 'GET', headers: this.headers({ path: opts.path }), dispatcher, signal: controller.signal, bodyTimeout: 0 });
      } catch (err) {
        throw this.transportError(err);
      } finally {
        clearTimeout(headersTimer);
      }
      for (const w of parseWarningHeader(res.headers.warning)) this.options.onWarning?.(w);
      if (res.statusCode < 200 || res.statusCode > 299) {
        const text = await res.body.text().catch(() => '');
        const { decodeErrorResponse } = await import('./status-decoding.js');
        throw decodeErrorResponse(res.statusCode, text, 'GET');
      }
      const body = res.headers['content-encoding'] === 'gzip' ? res.body.pipe((await import('node:zlib')).createGunzip()) : res.body;
      armIdle();
      try {
        for await (const event of readWatchEvents<T>(body, opts.maxEventBytes)) {
          armIdle();
          yield event;
        }
      } catch (err) {
        if (idleFired) throw new ClientError('Timeout', `no watch event or bookmark within ${opts.idleTimeoutMs} ms`, { cause: err });
        if (err instanceof ClientError) throw err;
        throw this.transportError(err);
      }
    } finally {
      clearTimeout(idle);
      opts.signal?.removeEventListener('abort', abort);
      if (res && !res.body.destroyed) res.body.destroy();
    }
  }

  private transportError(err: unknown): ClientError {
    const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
    const code = e.code ?? e.cause?.code;
    const host = new URL(this.config.server).host;
    if (e.name === 'TimeoutError' || e.name === 'AbortError' || code === 'UND_ERR_HEADERS_TIMEOUT') {
      return new ClientError('Timeout', `the server was unable to return a response in the time allotted, but may still be processing the request`, { cause: err });
    }
    if (code === 'ECONNREFUSED') {
      return new ClientError('Connection', `The connection to the server ${host} was refused - did you specify the right host or port?`, { cause: err });
    }
    return new ClientError('Connection', `Unable to connect to the server: ${e.message}`, { cause: err });
  }

  async close(): Promise<void> {
    await this.dispatcher?.close();
    this.dispatcher = undefined;
  }
}
