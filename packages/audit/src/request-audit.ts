/**
 * One request's audit record as it walks through the server (kube's `audit.AuditContext` with
 * `pkg/audit/request.go`): the event under construction, what the policy decided for it, and the
 * calls the filters and handlers make to fill it in. Each processed stage but the last hands the
 * backend a copy, so a backend may keep an event while the request goes on; the last one
 * (ResponseComplete or Panic) hands over the event itself and ignores later changes.
 */
import type { AuditStage } from '@plat/config';
import type { AuditBackend } from './backend.js';
import { EventRecord, microTime, nowMicros, type AuditEvent, type AuditObjectReference, type AuditResponseStatus, type AuditUserInfo } from './event.js';
import type { AuditMetrics } from './metrics.js';
import { levelLess, type RequestAuditConfig } from './policy-evaluator.js';

/** Kubernetes cuts longer User-Agent headers (request.go maybeTruncateUserAgent). */
export const maxUserAgentLength = 1024;
const userAgentTruncateSuffix = '...TRUNCATED';

/** The annotations the server adds (Kubernetes' keys). */
export const decisionAnnotationKey = 'authorization.k8s.io/decision';
export const reasonAnnotationKey = 'authorization.k8s.io/reason';

/** What a request's event starts with; read only by the constructor (a caller may reuse the object). */
export interface RequestAuditInit {
  auditID: string;
  /** Microseconds since the epoch. */
  requestReceivedMicros: number;
  verb: string;
  requestURI: string;
  user?: AuditUserInfo;
  sourceIPs: readonly string[];
  userAgent?: string;
  objectRef?: AuditObjectReference;
}

/** Metadata a request or response object supplies to the object reference. */
interface ObjectMetaLike {
  name?: unknown;
  namespace?: unknown;
  uid?: unknown;
  resourceVersion?: unknown;
  managedFields?: unknown;
}

function metadataOf(obj: unknown): ObjectMetaLike | undefined {
  if (typeof obj !== 'object' || obj === null) return undefined;
  const meta = (obj as { metadata?: unknown }).metadata;
  return typeof meta === 'object' && meta !== null ? (meta as ObjectMetaLike) : undefined;
}

/**
 * The object as the event may carry it: managedFields dropped when the policy says so, and a
 * TokenReview's token never (the bearer token it asks about is a credential).
 */
function recordable(obj: unknown, omitManagedFields: boolean): unknown {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return obj;
  const record = obj as Record<string, unknown>;
  let out = record;
  if (record.kind === 'TokenReview' && typeof record.spec === 'object' && record.spec !== null && 'token' in record.spec) {
    const { token: _token, ...spec } = record.spec as Record<string, unknown>;
    out = { ...out, spec };
  }
  const meta = metadataOf(record);
  if (omitManagedFields && meta && 'managedFields' in meta) {
    const { managedFields: _m, ...rest } = meta as Record<string, unknown>;
    out = { ...out, metadata: rest };
  }
  if (omitManagedFields && Array.isArray(record.items)) {
    // A list: each item loses its managedFields too (copyWithoutManagedFields does the same).
    out = { ...out, items: record.items.map((item) => recordable(item, true)) };
  }
  return out;
}

function asStatus(obj: unknown): AuditResponseStatus | undefined {
  if (typeof obj !== 'object' || obj === null) return undefined;
  const s = obj as Record<string, unknown>;
  if (s.kind !== 'Status' || typeof s.code !== 'number') return undefined;
  const out: AuditResponseStatus = { metadata: {} };
  if (typeof s.status === 'string') out.status = s.status;
  if (typeof s.message === 'string') out.message = s.message;
  if (typeof s.reason === 'string' && s.reason !== '') out.reason = s.reason;
  if (s.details !== undefined) out.details = s.details;
  out.code = s.code;
  return out;
}

/**
 * `{metadata: {}, code}` for each code, frozen and shared by the events that have no other status
 * (every success): no two objects an event, and the encoder knows the same object by identity
 * (with the other shared pieces: 0.952–0.966× of an audited GET's CPU, docs/performance.md "audit").
 */
const statusOfCode: Array<AuditResponseStatus | undefined> = new Array(1000).fill(undefined);

function codeStatus(code: number): AuditResponseStatus {
  if (!Number.isInteger(code) || code < 0 || code >= statusOfCode.length) return { metadata: {}, code };
  return (statusOfCode[code] ??= Object.freeze({ metadata: Object.freeze({}) as Record<string, never>, code }));
}

/**
 * The last authorization annotations, frozen: the requests of one binding share the object (the
 * decision and reason strings repeat), and the encoder knows it by identity. An event that gets
 * another annotation copies it first.
 */
let sharedAuthorization: Record<string, string> = Object.freeze({ 'authorization.k8s.io/decision': '', 'authorization.k8s.io/reason': '' });

export class RequestAudit {
  private readonly record: EventRecord;
  /**
   * The backend takes events whose timestamp strings are not made yet (the log's in batch mode):
   * it writes the times from their microseconds. No string of a time is made for such an event,
   * nor read back byte by byte: the real server's CPU a GET with auditing on 0.978 [0.925–1.040]
   * of what it was, −0.9 µs (tools/bench/audit/inprocess.mjs --audit-both, n=10, load 3.4); the
   * filter with the batch log backend 0.94 [0.73–1.29] (filter-ab.mjs, n=9, load 2.4).
   */
  private readonly lazyTimes: boolean;
  private codeSet = false;
  /** The last stage went out with the event itself: nothing may change it any more. */
  private sealed = false;

  constructor(
    readonly config: RequestAuditConfig,
    private readonly backend: AuditBackend,
    private readonly metrics: AuditMetrics,
    init: RequestAuditInit,
  ) {
    let userAgent = init.userAgent;
    if (userAgent !== undefined && userAgent.length > maxUserAgentLength) userAgent = userAgent.slice(0, maxUserAgentLength) + userAgentTruncateSuffix;
    const event = new EventRecord(config.level, init.auditID, init.requestURI, init.verb, init.user ?? {}, init.sourceIPs);
    // Assigned one by one rather than spread from conditional literals: no throw-away objects.
    if (userAgent !== undefined) event.userAgent = userAgent;
    if (init.objectRef) event.objectRef = init.objectRef;
    event.startTimes(init.requestReceivedMicros);
    this.record = event;
    this.lazyTimes = backend.writesPendingTimes === true;
  }

  /** The event with its timestamps (from now on kept as strings). */
  get event(): AuditEvent {
    this.record.makeTimestamps();
    return this.record as AuditEvent;
  }

  /** The event as the methods fill it in (its times pending). */
  private get ev(): AuditEvent {
    return this.record as AuditEvent;
  }

  /** Whether a status is recorded yet (without making the event's timestamp strings, as reading `event` does). */
  get hasResponseStatus(): boolean {
    return this.ev.responseStatus !== undefined;
  }

  get level() {
    return this.config.level;
  }

  /** Whether the last stage (ResponseComplete or Panic) has gone out: the event can change no more. */
  get finished(): boolean {
    return this.sealed;
  }

  /** Adds an annotation unless one with the key is there already (kube keeps the first and logs the clash). */
  addAnnotation(key: string, value: string): void {
    if (this.sealed) return;
    let annotations = (this.ev.annotations ??= {});
    if (key in annotations) return;
    // Shared (frozen) authorization annotations: this event's own copy takes the new one.
    if (Object.isFrozen(annotations)) annotations = this.ev.annotations = { ...annotations };
    annotations[key] = value;
  }

  /**
   * Kubernetes' authorization annotations (filters/authorization.go): the decision and the
   * authorizer's reason, each unless already there. Both in one object literal when the event has
   * no annotations yet (as for every request the authorizer sees): adding them one by one cost a
   * megamorphic keyed store each, about 0.7 µs a GET on the server (perf, load 15).
   */
  addAuthorizationAnnotations(decision: string, reason: string): void {
    if (this.sealed) return;
    if (this.ev.annotations === undefined) {
      let shared = sharedAuthorization;
      if (shared['authorization.k8s.io/decision'] !== decision || shared['authorization.k8s.io/reason'] !== reason) {
        // Literal keys (decisionAnnotationKey, reasonAnnotationKey): computed ones are keyed stores again.
        shared = sharedAuthorization = Object.freeze({ 'authorization.k8s.io/decision': decision, 'authorization.k8s.io/reason': reason });
      }
      this.ev.annotations = shared;
      return;
    }
    this.addAnnotation(decisionAnnotationKey, decision);
    this.addAnnotation(reasonAnnotationKey, reason);
  }

  logImpersonatedUser(user: AuditUserInfo): void {
    if (this.sealed) return;
    this.ev.impersonatedUser = user;
  }

  /** The decoded body of a create, update or delete (Request level and above); fills the object reference at every level. */
  logRequestObject(obj: unknown): void {
    if (this.sealed) return;
    this.fillObjectRef(obj);
    if (levelLess(this.config.level, 'Request')) return;
    this.ev.requestObject = recordable(obj, this.config.omitManagedFields);
  }

  /** A patch body as sent (Request level and above). */
  logRequestPatch(patch: unknown): void {
    if (this.sealed || levelLess(this.config.level, 'Request')) return;
    this.ev.requestObject = patch;
  }

  /** What the response carries: a Status sets responseStatus; the object itself is kept at RequestResponse. */
  logResponseObject(obj: unknown): void {
    if (this.sealed) return;
    const status = asStatus(obj);
    if (status) this.ev.responseStatus = status;
    if (levelLess(this.config.level, 'RequestResponse')) return;
    this.ev.responseObject = recordable(obj, this.config.omitManagedFields);
  }

  /** The response's HTTP status, from the first header written. Returns true the first time. */
  setResponseCode(code: number): boolean {
    if (this.codeSet || this.sealed) return false;
    this.codeSet = true;
    if (this.ev.responseStatus) this.ev.responseStatus.code ??= code;
    else this.ev.responseStatus = codeStatus(code);
    return true;
  }

  setResponseStatus(status: AuditResponseStatus): void {
    if (this.sealed) return;
    this.ev.responseStatus = status;
  }

  /** Sends the event at `stage` unless the policy omits that stage; false when the backend could not store it. */
  processStage(stage: AuditStage): boolean | Promise<boolean> {
    // The check alone, the sending apart: callers that V8 inlines this into (the audit filter,
    // request accounting) do not spend their inlining budget on a copy of the event they never make.
    if (this.config.omitStages.has(stage)) return true;
    return this.sendStage(stage);
  }

  private sendStage(stage: AuditStage): boolean | Promise<boolean> {
    const record = this.record;
    const ev = record as AuditEvent;
    this.metrics.event();
    if (stage === 'ResponseComplete' || stage === 'Panic') {
      // The last stage hands over the event itself, sealed, instead of a copy: nothing may change
      // it afterwards, and with ResponseComplete alone (the recommended policy) no event is copied.
      this.sealed = true;
      ev.stage = stage;
      record.setStageMicros(nowMicros());
      if (!this.lazyTimes) record.makeTimestamps();
      return this.backend.processEvents([ev]);
    }
    record.makeTimestamps();
    const copy: AuditEvent = {
      ...ev,
      stage,
      stageTimestamp: microTime(nowMicros()),
      ...(ev.annotations ? { annotations: { ...ev.annotations } } : {}),
      ...(ev.responseStatus ? { responseStatus: { ...ev.responseStatus } } : {}),
      ...(ev.objectRef ? { objectRef: { ...ev.objectRef } } : {}),
    };
    return this.backend.processEvents([copy]);
  }

  private fillObjectRef(obj: unknown): void {
    const meta = metadataOf(obj);
    if (!meta) return;
    let ref = (this.ev.objectRef ??= {});
    // Shared with other requests (frozen, see the audit filter): this event's own copy takes the fields.
    if (Object.isFrozen(ref)) ref = this.ev.objectRef = { ...ref };
    if (!ref.namespace && typeof meta.namespace === 'string' && meta.namespace) ref.namespace = meta.namespace;
    if (!ref.name && typeof meta.name === 'string' && meta.name) ref.name = meta.name;
    if (!ref.uid && typeof meta.uid === 'string' && meta.uid) ref.uid = meta.uid;
    if (!ref.resourceVersion && typeof meta.resourceVersion === 'string' && meta.resourceVersion) ref.resourceVersion = meta.resourceVersion;
  }
}
