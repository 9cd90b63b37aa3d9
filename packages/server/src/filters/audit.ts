/**
 * Kubernetes' audit filter (k8s.io/apiserver `pkg/endpoints/filters/audit.go` WithAudit): the policy
 * decides the level from the authenticated user and the request info; from Metadata up the
 * request's event goes to the backend at RequestReceived, at ResponseStarted for long-running
 * requests (watches) when their head is written, at ResponseComplete when the handler is done, and
 * at Panic when it threw. Handlers and later filters fill the event through `ctx.audit` (request
 * and response objects, the impersonated user, the authorization decision).
 *
 * The last two stages are not this filter's to send: it hands its request on without waiting for
 * it, and the request's end is seen by the filters that already wait for it. Request accounting
 * (the outermost filter, which settles every request) calls completeRequestAudit once the handler
 * is done, and panic recovery calls panicRequestAudit before it answers 500, as Kubernetes' audit
 * filter records Panic before the panic reaches recovery (k8s.io/apiserver
 * pkg/endpoints/filters/audit.go, WithAudit: its deferred recover processes the event, then panics
 * again). Kubernetes splits auditing over filters too: WithAuditInit, the outermost filter of
 * pkg/server/config.go DefaultBuildHandlerChain, creates the request's audit context. An async filter
 * that awaited the handler was one more async frame, promise and turn of the microtask queue a
 * request: about 370 B of its 700 B of garbage a GET, and the real server's CPU a GET with
 * auditing on 0.987 [0.873–1.243] and 0.990 [0.954–1.247] of what it was, −0.5 and −0.4 µs
 * (tools/bench/audit/inprocess.mjs --audit-both, n=20, two runs at load 1–2).
 */
import { isIP } from 'node:net';
import { newInternalError } from '@plat/api-model';
import {
  RequestAudit,
  nowMicros,
  type RequestAuditConfig,
  type RequestAuditInit,
  type AuditBackend,
  type AuditMetrics,
  type AuditObjectReference,
  type AuditAttributes,
  type AuditUserInfo,
  type PolicyRuleEvaluator,
} from '@plat/audit';
import type { UserInfo } from '@plat/auth';
import type { Filter, OutgoingResponse, RequestContext } from '../context.js';
import { writeError } from '../response.js';
import { presentedClientCertificate } from './authentication.js';

export interface ServerAudit {
  evaluator: PolicyRuleEvaluator;
  backend: AuditBackend;
  metrics: AuditMetrics;
}

/** Source IPs as Kubernetes' utilnet.SourceIPs lists them: X-Forwarded-For, X-Real-Ip, then the peer. */
const maxSourceIPs = 16;

function plainIP(value: string): string {
  const v = value.trim();
  return v.startsWith('::ffff:') && v.includes('.') ? v.slice(7) : v;
}

/** The request headers an event takes (the first of each, as Go's Header.Get in kube-apiserver). */
export interface ClientHeaders {
  userAgent: string | undefined;
  forwardedFor: string | undefined;
  realIP: string | undefined;
}

/**
 * Reads User-Agent, X-Forwarded-For and X-Real-Ip in one pass over the raw headers, into `out`.
 * Looking the three up in `req.headers` (a different object each request, the two X- headers
 * usually absent) cost a megamorphic keyed load each, about 0.3 µs a GET on the server (perf,
 * load 15). Requests without raw headers (the server's loopback requests) are read by name.
 */
export function readClientHeaders(req: RequestContext['req'], out: ClientHeaders): ClientHeaders {
  const raw = (req as { rawHeaders?: readonly string[] }).rawHeaders;
  if (raw === undefined) {
    const h = req.headers;
    const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
    out.userAgent = first(h['user-agent']);
    out.forwardedFor = first(h['x-forwarded-for']);
    out.realIP = first(h['x-real-ip']);
    return out;
  }
  out.userAgent = undefined;
  out.forwardedFor = undefined;
  out.realIP = undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    // By length and first letter first: most names are none of the three (Connection and
    // Accept-Encoding have their lengths: lower-casing them was 0.18 of perf's inflated µs a GET,
    // profile.mjs at load 3); the usual spelling before a lower-cased copy.
    switch (name.length) {
      case 10:
        if (out.userAgent === undefined && (name === 'User-Agent' || name === 'user-agent' || ((name.charCodeAt(0) | 0x20) === 0x75 && name.toLowerCase() === 'user-agent'))) out.userAgent = raw[i + 1];
        break;
      case 15:
        if (out.forwardedFor === undefined && (name === 'X-Forwarded-For' || ((name.charCodeAt(0) | 0x20) === 0x78 && name.toLowerCase() === 'x-forwarded-for'))) out.forwardedFor = raw[i + 1];
        break;
      case 9:
        if (out.realIP === undefined && (name === 'X-Real-Ip' || ((name.charCodeAt(0) | 0x20) === 0x78 && name.toLowerCase() === 'x-real-ip'))) out.realIP = raw[i + 1];
        break;
    }
  }
  return out;
}

/**
 * A direct client's source IPs by its connection: the peer's address never changes on a socket,
 * and reading it (socket.remoteAddress, a getter over several megamorphic loads) with the
 * address check was about 0.25 µs a GET on the server (perf, load 9). The list is frozen: the
 * connection's events share it.
 */
const peerIPsBySocket = new WeakMap<object, readonly string[]>();

/**
 * The connections of one client share one list: the last peer's list is handed to the next
 * connection from the same address, and every connection without an address shares one empty
 * list. The log backend's encoder writes an event whose pieces are the last event's (by identity)
 * from that event's bytes (encodeSame in @plat/audit event-json.ts); a list of each connection's
 * own sent nearly every GET of a client with several connections down the slower path that
 * compares and keeps each piece again (perf: encodeRuns with its calls 1.5 inflated µs a GET, load
 * 3.5). Shared: the real server's CPU a GET with auditing on 0.979 and 0.962 [0.778–1.059] of
 * what it was, −0.8 and −1.4 µs (tools/bench/audit/inprocess.mjs --audit-both, n=10 and 20,
 * load 2.5). Memory: the last peer's address and list.
 */
const noIPs: readonly string[] = Object.freeze([]);
let lastPeer = '';
let lastPeerIPs: readonly string[] = noIPs;

export function sourceIPs(ctx: RequestContext, headers: ClientHeaders = readClientHeaders(ctx.req, { userAgent: undefined, forwardedFor: undefined, realIP: undefined })): readonly string[] {
  const forwarded = headers.forwardedFor;
  const real = headers.realIP;
  const socket = ctx.req.socket;
  if (forwarded === undefined && real === undefined) {
    // The common case, a direct client: its address alone, without the list's bookkeeping.
    const known = peerIPsBySocket.get(socket);
    if (known !== undefined) return known;
    const peer = socket.remoteAddress;
    if (!peer) return noIPs;
    if (peer === lastPeer) {
      peerIPsBySocket.set(socket, lastPeerIPs);
      return lastPeerIPs;
    }
    const ip = plainIP(peer);
    const ips = isIP(ip) !== 0 ? Object.freeze([ip]) : noIPs;
    // Only while the address is known: a socket that has not got one yet (or lost it) asks again.
    peerIPsBySocket.set(socket, ips);
    lastPeer = peer;
    lastPeerIPs = ips;
    return ips;
  }
  const peer = socket.remoteAddress;
  const out: string[] = [];
  // Only what parses as an IP address, as Kubernetes' ParseIPSloppy: a header is the client's to write.
  const add = (ip: string) => {
    if (isIP(ip) !== 0 && !out.includes(ip) && out.length < maxSourceIPs) out.push(ip);
  };
  if (forwarded !== undefined) for (const part of forwarded.split(',').slice(0, maxSourceIPs)) add(plainIP(part));
  if (real !== undefined) add(plainIP(real));
  if (peer) add(plainIP(peer));
  return out;
}

/**
 * The audited copy of each deep-frozen user (the client-certificate authenticator shares one per
 * verified chain), frozen itself: the requests of a client share it, and the log backend's encoder
 * reuses its JSON by identity instead of comparing its fields with the last event's. With the
 * shared object reference below and the shared annotations and status of @plat/audit, measured
 * together: the real server's CPU a GET with auditing on 0.952–0.966× of what it was
 * (tools/bench/audit/inprocess.mjs --audit-both, n=10, docs/performance.md "audit").
 */
const frozenAuditUsers = new WeakMap<UserInfo, AuditUserInfo>();
// The last of them, checked before the map: mostly the same client as the request before.
let lastFrozenUser: UserInfo | undefined;
let lastFrozenAuditUser: AuditUserInfo = {};

export function auditUser(user: UserInfo): AuditUserInfo {
  if (user === lastFrozenUser) return lastFrozenAuditUser;
  if (!Object.isFrozen(user) || (user.groups !== undefined && !Object.isFrozen(user.groups)) || user.extra !== undefined) return copyUser(user);
  let out = frozenAuditUsers.get(user);
  if (out === undefined) {
    out = copyUser(user);
    if (out.groups) Object.freeze(out.groups);
    Object.freeze(out);
    frozenAuditUsers.set(user, out);
  }
  lastFrozenUser = user;
  lastFrozenAuditUser = out;
  return out;
}

function copyUser(user: UserInfo): AuditUserInfo {
  const out: AuditUserInfo = { username: user.username };
  if (user.uid) out.uid = user.uid;
  if (user.groups && user.groups.length > 0) out.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length > 0) out.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  return out;
}

// The wall clock of nowMicros() is the process's start time plus its monotonic clock (the one
// process.hrtime reads), so the difference of the two is fixed: taken once, a request's start
// needs no BigInt arithmetic (the nanoseconds of the monotonic clock stay exact in a double for
// 104 days of uptime, and within microseconds long after).
const monotonicToEpochMicros = nowMicros() - Number(process.hrtime.bigint()) / 1000;

/** When the request arrived, in microseconds since the epoch (`ctx.startTime` is process.hrtime's). */
function receivedMicros(ctx: RequestContext): number {
  return monotonicToEpochMicros + Number(ctx.startTime) / 1000;
}

/**
 * The last object reference made, frozen: the next request for the same object shares it (the
 * event copies it before a body fills it in), and the encoder knows it by identity.
 */
let lastObjectRef: AuditObjectReference = Object.freeze({});

/** The request's object reference, its keys in the order Kubernetes' ObjectReference has them. */
function objectRefOf(info: RequestContext['info']): AuditObjectReference {
  const last = lastObjectRef;
  if (
    last.resource === info.resource &&
    last.name === (info.name || undefined) &&
    last.namespace === (info.namespace || undefined) &&
    last.apiGroup === info.apiGroup &&
    last.apiVersion === info.apiVersion &&
    last.subresource === (info.subresource || undefined) &&
    last.resource !== undefined
  ) {
    return last;
  }
  const ref: AuditObjectReference = { resource: info.resource };
  if (info.namespace) ref.namespace = info.namespace;
  if (info.name) ref.name = info.name;
  ref.apiGroup = info.apiGroup;
  ref.apiVersion = info.apiVersion;
  if (info.subresource) ref.subresource = info.subresource;
  lastObjectRef = Object.freeze(ref);
  return ref;
}

/** Calls `onHead(code)` once, when the response's status goes out (writeHead, or the first write). */
function watchResponseHead(res: OutgoingResponse, onHead: (code: number) => void): void {
  let seen = false;
  const see = (code: number) => {
    if (seen) return;
    seen = true;
    onHead(code);
  };
  const writeHead = res.writeHead;
  res.writeHead = function (this: OutgoingResponse, ...args: Parameters<OutgoingResponse['writeHead']>) {
    see(args[0]);
    return writeHead.apply(this, args);
  };
  const write = res.write;
  res.write = function (this: OutgoingResponse, ...args: Parameters<OutgoingResponse['write']>) {
    see(res.statusCode);
    return write.apply(this, args);
  };
}

/** A user no one can change: frozen, and its groups too (what the policy reads of it). */
function frozenUser(user: UserInfo | undefined): boolean {
  return user === undefined || (Object.isFrozen(user) && (user.groups === undefined || Object.isFrozen(user.groups)));
}

export function withAudit(audit: ServerAudit): Filter {
  const { evaluator, backend, metrics } = audit;
  const attrs: AuditAttributes = { verb: '', resourceRequest: false, path: '' };
  const headers: ClientHeaders = { userAgent: undefined, forwardedFor: undefined, realIP: undefined };
  // One init object, filled in per request: RequestAudit's constructor keeps nothing of it.
  const init: RequestAuditInit = { auditID: '', requestReceivedMicros: 0, verb: '', requestURI: '', user: undefined, sourceIPs: [], userAgent: undefined, objectRef: undefined };
  /**
   * The last request's info and user when neither can change (request-info.ts shares one frozen
   * info per path of a GET, the x509 authenticator one deep-frozen user per client), with what
   * the policy made of them and their event pieces (the audited user, the object reference): the
   * same two objects again are the same request as far as the policy and those pieces go, and two
   * identity checks replace the attributes' nine stores, the policy's comparisons and the pieces':
   * the real server's CPU a GET with auditing on 0.993 [0.936–1.023] and 0.974 [0.942–1.089] of
   * what it was, −0.3 and −1.1 µs (tools/bench/audit/inprocess.mjs --audit-both, n=20, load 3).
   * Memory: one request's objects.
   */
  let lastInfo: RequestContext['info'] | undefined;
  let lastUser: UserInfo | undefined;
  let lastConfig: RequestAuditConfig | undefined;
  let lastAuditUser: AuditUserInfo | undefined;
  let lastRef: AuditObjectReference | undefined;
  /**
   * The request's audit record from its policy level, and its RequestReceived stage: true to hand
   * the request on (with `ctx.audit` from Metadata up), false when it was refused (its event could
   * not be stored), or a promise of either when the backend must wait.
   */
  const begin = (ctx: RequestContext): boolean | Promise<boolean> => {
    const info = ctx.info;
    const user = ctx.user;
    let config: RequestAuditConfig;
    let pairSeen = false;
    if (info === lastInfo && user === lastUser && lastConfig !== undefined) {
      config = lastConfig;
      pairSeen = true;
    } else {
      // One attributes object, filled in per request: evaluate() keeps nothing of it, and the
      // policy reads the authenticated user as it is.
      attrs.user = user;
      attrs.verb = info.verb;
      attrs.resourceRequest = info.isResourceRequest;
      attrs.apiGroup = info.apiGroup;
      attrs.resource = info.resource;
      attrs.subresource = info.subresource;
      attrs.namespace = info.namespace;
      attrs.name = info.name;
      attrs.path = info.path;
      config = evaluator.evaluate(attrs);
      attrs.user = undefined;
      lastConfig = undefined;
      if (Object.isFrozen(info) && frozenUser(user)) {
        lastInfo = info;
        lastUser = user;
        lastConfig = config;
        lastAuditUser = undefined;
        lastRef = undefined;
      }
    }
    metrics.level(config.level);
    if (config.level === 'None') return true;

    readClientHeaders(ctx.req, headers);
    init.auditID = ctx.auditId;
    init.requestReceivedMicros = receivedMicros(ctx);
    init.verb = info.verb;
    init.requestURI = ctx.req.url ?? ctx.path;
    if (pairSeen && lastAuditUser !== undefined) {
      init.user = lastAuditUser;
      init.objectRef = lastRef;
    } else {
      init.user = user ? auditUser(user) : undefined;
      init.objectRef = info.isResourceRequest ? objectRefOf(info) : undefined;
      // Only pieces no one can change: a copy of a user that is not frozen (auditUser) is made anew.
      if (lastConfig !== undefined && (init.user === undefined || Object.isFrozen(init.user))) {
        lastAuditUser = init.user;
        lastRef = init.objectRef;
      }
    }
    init.sourceIPs = sourceIPs(ctx, headers);
    init.userAgent = headers.userAgent;
    const ra = new RequestAudit(config, backend, metrics, init);
    // Nothing of the request's stays behind in the shared object.
    init.user = undefined;
    init.objectRef = undefined;
    ctx.audit = ra;
    const received = ra.processStage('RequestReceived');
    if (received === true) return started(ctx, ra);
    if (received === false) return refuse(ctx);
    // A backend that must wait (a blocking webhook): the request goes on once its event is stored.
    return received.then(
      (stored) => (stored ? started(ctx, ra) : refuse(ctx)),
      () => refuse(ctx),
    );
  };

  const refuse = (ctx: RequestContext): false => {
    // blocking-strict: a request whose event cannot be stored is not served, and has no more stages.
    ctx.audit = undefined;
    metrics.requestRejected();
    writeError(ctx, newInternalError(new Error('failed to store audit event')));
    return false;
  };

  /**
   * The filter itself only hands the request on, its last stage being sent when it ends
   * (completeRequestAudit, panicRequestAudit); the rest is begin()'s, a function of its own. V8
   * inlines the filters below into the one that calls them, within a budget of bytecode per
   * optimized function: a filter with the audit's work in it spent that budget on its own helpers
   * (RequestAudit, processStage, the event's constructor, 757 of the 920 bytecodes,
   * --trace-turbo-inlining), so that impersonation, max-in-flight, authorization and routing,
   * inlined into authentication with auditing off, were calls of their own with it on. Apart:
   * the real server's CPU a GET with auditing on 0.989 and 0.971 of what it was, −0.4 and −1.2 µs
   * (tools/bench/audit/inprocess.mjs --audit-both, n=20, load 1.7–2.2); with the encoder's template
   * (@plat/audit event-json.ts), what auditing adds to a GET in one process went from 4.0 and 2.2
   * to 2.7 and 0.9 µs (inprocess.mjs, audit off against on in one build, n=16, runs alternating).
   */
  return (next) => (ctx) => {
    const go = begin(ctx);
    if (go === true) return next(ctx);
    if (go === false) return Promise.resolve();
    return go.then((ok) => (ok ? next(ctx) : undefined));
  };
}

/** The request is audited: a stream learns when its head goes out (ResponseStarted). */
function started(ctx: RequestContext, ra: RequestAudit): true {
  // Only streams need to know that moment; the others take the status once the handler is done,
  // without wrapping the response's methods (which would give every response object its own shape).
  if (ctx.longRunning) {
    watchResponseHead(ctx.res, (code) => {
      ra.setResponseCode(code);
      void ra.processStage('ResponseStarted');
    });
  }
  return true;
}

/**
 * ResponseComplete for the request's event, once its handler is done (request accounting calls it
 * for a request with `ctx.audit`); nothing when its last stage went out already (Panic). A promise
 * when the backend must wait: the request counts as finished once it settles.
 */
export function completeRequestAudit(ctx: RequestContext, ra: RequestAudit): boolean | Promise<boolean> {
  if (ra.finished) return true;
  if (ctx.res.headersSent) ra.setResponseCode(ctx.res.statusCode);
  if (!ra.hasResponseStatus) {
    // The handler wrote nothing (the client went away): Kubernetes records a faked success.
    ra.setResponseStatus({ metadata: {}, code: 200, status: 'Success', message: 'Connection closed early' });
    if (ctx.longRunning) {
      const started = ra.processStage('ResponseStarted');
      if (typeof started !== 'boolean') return started.then(() => ra.processStage('ResponseComplete'));
    }
  }
  return ra.processStage('ResponseComplete');
}

/**
 * Panic for the request's event, with what its handler threw (panic recovery calls it before it
 * answers 500); nothing when its last stage went out already. A promise when the backend must wait.
 */
export function panicRequestAudit(ra: RequestAudit, err: unknown): boolean | Promise<boolean> {
  if (ra.finished) return true;
  ra.setResponseStatus({
    metadata: {},
    code: 500,
    status: 'Failure',
    reason: 'InternalError',
    message: `APIServer panic'd: ${err instanceof Error ? err.message : String(err)}`,
  });
  return ra.processStage('Panic');
}

/** Kubernetes' getAuthMethods: which credentials a refused request tried, never their values. */
function authMethods(ctx: RequestContext): string {
  const methods: string[] = [];
  const authorization = String(ctx.req.headers.authorization ?? '').trim();
  const scheme = authorization.split(' ')[0]!.toLowerCase();
  if (scheme === 'basic') methods.push('basic');
  if (scheme === 'bearer' && authorization.includes(' ')) methods.push('bearer');
  if (ctx.query.get('access_token')) methods.push('access_token');
  if (presentedClientCertificate(ctx)) methods.push('x509');
  return methods.length > 0 ? `Authentication failed, attempted: ${methods.join(', ')}` : 'Authentication failed, no credentials provided';
}

/**
 * Kubernetes' WithFailedAuthenticationAudit: a request the authenticator refused (401) is
 * recorded once, at ResponseStarted, without a user, if the policy audits it (rules naming users
 * or groups cannot match it). Kubernetes runs it as a filter just outside authentication; here the
 * authentication filter calls it after writing its 401 (withAuthentication's onUnauthenticated),
 * which records the same requests: a filter of its own was one more async function and promise
 * around every request, audited or not.
 */
export function auditFailedAuthentication(audit: ServerAudit): (ctx: RequestContext) => Promise<void> {
  const { evaluator, backend, metrics } = audit;
  return async (ctx) => {
    const info = ctx.info;
    const headers = readClientHeaders(ctx.req, { userAgent: undefined, forwardedFor: undefined, realIP: undefined });
    const config = evaluator.evaluate({
      verb: info.verb,
      resourceRequest: info.isResourceRequest,
      apiGroup: info.apiGroup,
      resource: info.resource,
      subresource: info.subresource,
      namespace: info.namespace,
      name: info.name,
      path: info.path,
    });
    metrics.level(config.level);
    if (config.level === 'None') return;
    const ra = new RequestAudit(config, backend, metrics, {
      auditID: ctx.auditId,
      requestReceivedMicros: receivedMicros(ctx),
      verb: info.verb,
      requestURI: ctx.req.url ?? ctx.path,
      sourceIPs: sourceIPs(ctx, headers),
      userAgent: headers.userAgent,
      objectRef: info.isResourceRequest
        ? { resource: info.resource, ...(info.namespace ? { namespace: info.namespace } : {}), ...(info.name ? { name: info.name } : {}), apiGroup: info.apiGroup, apiVersion: info.apiVersion }
        : undefined,
    });
    ra.setResponseStatus({ metadata: {}, message: authMethods(ctx), code: 401 });
    await ra.processStage('ResponseStarted');
  };
}
