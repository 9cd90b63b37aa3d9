/**
 * The server's in-process client (Kubernetes' loopback client): requests the server makes to
 * itself (its bootstrap policy, its controllers) walk the same filter chain and REST handlers as
 * a request over HTTPS (authentication, audit, authorization, validation, admission, defaulting,
 * managedFields), as `system:apiserver` in `system:masters`.
 *
 * kube-apiserver dials its own port with a bearer token made at start
 * (k8s.io/apiserver/pkg/server/config.go, AuthorizeClientBearerToken: the token stands for
 * `system:apiserver` with a fresh uid in `system:masters`). Here the request never leaves the
 * process: it is handed to the chain as a request object only this module makes, and that object
 * is the credential. No token exists that could leak, no TCP connection or TLS handshake is paid,
 * and the server need not listen yet, so the bootstrap policy is in place before the first client
 * is served.
 */
import { randomUUID } from 'node:crypto';
import { StatusError, type ApiObject, type Status } from '@plat/api-model';
import { systemMasters, type UserInfo } from '@plat/auth';
import { ServerRequestContext, splitRequestTarget, type Handler, type IncomingRequest, type OutgoingResponse } from './context.js';
import { writeError } from './response.js';

/** The user of the server's own requests (Kubernetes' user.APIServerUser). */
export const apiserverUser = 'system:apiserver';

/** One in-process request: the method, the path with its query, and a JSON body. */
export interface LoopbackRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path and query, as a client would send them (`/api/v1/namespaces/default?dryRun=All`). */
  path: string;
  /** Encoded as JSON (or sent as is when a string, with `contentType`). */
  body?: unknown;
  /** The body's media type; default `application/json`. */
  contentType?: string;
  signal?: AbortSignal;
}

export interface LoopbackResponse {
  status: number;
  headers: Record<string, string | number | readonly string[]>;
  body: Buffer;
}

/** The request object of an in-process request; its `user` is who the request authenticates as. */
export class LoopbackIncomingRequest implements IncomingRequest {
  readonly httpVersion = '1.1';
  readonly socket = { remoteAddress: '127.0.0.1', remotePort: 0 };
  readonly rawHeaders: string[];

  constructor(
    readonly method: string,
    readonly url: string,
    readonly headers: Record<string, string>,
    readonly user: UserInfo,
    private readonly body: Buffer | undefined,
  ) {
    this.rawHeaders = Object.entries(headers).flat();
  }

  on(): this {
    return this;
  }

  destroy(): this {
    return this;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    if (this.body) yield this.body;
  }

  iterator(): AsyncIterable<Buffer> {
    return this;
  }
}

type ResponseEvent = 'close' | 'finish' | 'drain';

/** The response of an in-process request, collected in memory. */
class LoopbackOutgoingResponse implements OutgoingResponse {
  statusCode = 200;
  headersSent = false;
  writableEnded = false;
  readonly finished: Promise<void>;
  private readonly chunks: Buffer[] = [];
  private readonly headers: Record<string, string | number | readonly string[]> = {};
  private readonly listeners: { event: ResponseEvent; listener: () => void }[] = [];
  private resolveFinished!: () => void;

  constructor() {
    this.finished = new Promise((resolve) => (this.resolveFinished = resolve));
  }

  setHeader(name: string, value: string | number | readonly string[]): this {
    this.headers[name.toLowerCase()] = value;
    return this;
  }

  getHeader(name: string): unknown {
    return this.headers[name.toLowerCase()];
  }

  removeHeader(name: string): void {
    delete this.headers[name.toLowerCase()];
  }

  writeHead(statusCode: number, headers?: Record<string, string | number | string[]> | (string | number | string[])[]): this {
    this.statusCode = statusCode;
    if (Array.isArray(headers)) for (let i = 0; i + 1 < headers.length; i += 2) this.setHeader(String(headers[i]), headers[i + 1]!);
    else for (const [name, value] of Object.entries(headers ?? {})) this.setHeader(name, value);
    this.headersSent = true;
    return this;
  }

  write(chunk: string | Buffer, cb?: (err?: Error | null) => void): boolean {
    this.headersSent = true;
    // A copy: as a socket's, the write is done once its callback ran, and the writer may use
    // the chunk's memory again after 'finish' (a LIST's body, rest/list-buffers.ts).
    this.chunks.push(Buffer.from(chunk));
    cb?.();
    return true;
  }

  end(chunk?: string | Buffer, cb?: () => void): this {
    if (this.writableEnded) return this;
    if (chunk !== undefined) this.write(chunk);
    this.headersSent = true;
    this.writableEnded = true;
    this.emit('finish');
    this.emit('close');
    this.resolveFinished();
    cb?.();
    return this;
  }

  destroy(): this {
    if (!this.writableEnded) {
      this.emit('close');
      this.resolveFinished();
    }
    return this;
  }

  on(event: ResponseEvent, listener: () => void): this {
    this.listeners.push({ event, listener });
    return this;
  }

  once(event: ResponseEvent, listener: () => void): this {
    const entry = {
      event,
      listener: () => {
        this.listeners.splice(this.listeners.indexOf(entry), 1);
        listener();
      },
    };
    this.listeners.push(entry);
    return this;
  }

  response(): LoopbackResponse {
    return { status: this.statusCode, headers: { ...this.headers }, body: Buffer.concat(this.chunks) };
  }

  private emit(event: ResponseEvent): void {
    for (const entry of [...this.listeners]) if (entry.event === event) entry.listener();
  }
}

function statusErrorOf(res: LoopbackResponse): StatusError {
  let status: Partial<Status> = {};
  try {
    status = JSON.parse(res.body.toString('utf8')) as Partial<Status>;
  } catch {
    // Not a Status: the code alone says what went wrong.
  }
  return new StatusError({
    status: 'Failure',
    message: status.message ?? `the server answered ${res.status}`,
    reason: status.reason,
    details: status.details,
    code: res.status,
  });
}

/**
 * The server's client to itself. `request` answers whatever the server answered; the verbs
 * answer the object and throw a StatusError (the server's Status: reason, message, causes) when
 * the server refuses.
 */
export class LoopbackClient {
  /** The user the requests authenticate as: `system:apiserver` in `system:masters`, with this server's uid. */
  readonly user: UserInfo = { username: apiserverUser, uid: randomUUID(), groups: [systemMasters] };

  constructor(
    private readonly handler: Handler,
    /** Kubernetes' DefaultKubernetesUserAgent; its part before the first `/` is the field manager. */
    private readonly userAgent: string,
  ) {}

  async request(req: LoopbackRequest): Promise<LoopbackResponse> {
    const headers: Record<string, string> = { 'user-agent': this.userAgent, accept: 'application/json' };
    let body: Buffer | undefined;
    if (req.body !== undefined) {
      body = Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body));
      headers['content-type'] = req.contentType ?? 'application/json';
      headers['content-length'] = String(body.length);
    }
    const incoming = new LoopbackIncomingRequest(req.method, req.path, headers, this.user, body);
    const res = new LoopbackOutgoingResponse();
    const ctx = new ServerRequestContext(incoming, res, req.method, splitRequestTarget(req.path), randomUUID(), process.hrtime.bigint());
    const onAbort = () => ctx.abort(req.signal!.reason instanceof Error ? req.signal!.reason : new Error('the request was aborted'));
    req.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      // As serving.ts: an error nobody turned into a Status is written as one.
      const handled = this.handler(ctx).catch((err: unknown) => {
        if (!res.headersSent) writeError(ctx, err);
      });
      // A request whose deadline passed has its answer, the 504, before its handler ends
      // (filters/timeout.ts): the caller gets it then, as an HTTP client does.
      await Promise.race([handled, res.finished.then(() => (ctx.timer?.timedOut ? undefined : handled))]);
      if (!res.writableEnded) res.end();
      await res.finished;
    } finally {
      req.signal?.removeEventListener('abort', onAbort);
    }
    return res.response();
  }

  /** The object at `path`. */
  get(path: string, opts: { signal?: AbortSignal } = {}): Promise<ApiObject> {
    return this.object({ method: 'GET', path, ...opts });
  }

  /** POST to the collection `path`. */
  create(path: string, obj: ApiObject, opts: { signal?: AbortSignal } = {}): Promise<ApiObject> {
    return this.object({ method: 'POST', path, body: obj, ...opts });
  }

  /** PUT to the object's `path` (its resourceVersion makes it conditional). */
  update(path: string, obj: ApiObject, opts: { signal?: AbortSignal } = {}): Promise<ApiObject> {
    return this.object({ method: 'PUT', path, body: obj, ...opts });
  }

  /** DELETE of `path` (an object or a collection), with DeleteOptions (preconditions, propagation). */
  delete(path: string, options?: Record<string, unknown>, opts: { signal?: AbortSignal } = {}): Promise<ApiObject> {
    return this.object({ method: 'DELETE', path, body: options && { apiVersion: 'v1', kind: 'DeleteOptions', ...options }, ...opts });
  }

  /** Server-side apply of `obj` at `path` as `fieldManager`. */
  apply(path: string, obj: ApiObject, o: { fieldManager: string; force?: boolean; signal?: AbortSignal }): Promise<ApiObject> {
    const query = `fieldManager=${encodeURIComponent(o.fieldManager)}${o.force ? '&force=true' : ''}`;
    return this.object({
      method: 'PATCH',
      path: `${path}${path.includes('?') ? '&' : '?'}${query}`,
      body: JSON.stringify(obj),
      contentType: 'application/apply-patch+yaml',
      signal: o.signal,
    });
  }

  private async object(req: LoopbackRequest): Promise<ApiObject> {
    const res = await this.request(req);
    if (res.status < 200 || res.status > 299) throw statusErrorOf(res);
    return JSON.parse(res.body.toString('utf8')) as ApiObject;
  }
}
