/**
 * One request's audit record as it walks through the server (kube's `audit.AuditContext` with
 * `pkg/audit/request.go`): the event under construction, what the policy decided for it, and the
 * calls the filters and handlers make to fill it in. Each processed stage but the last hands the
 * backend a copy, so a backend may keep an event while the request goes on; the last one
 * (ResponseComplete or Panic) hands over the event itself and ignores later changes.
 */
import type { AuditStage } from '@plat/config';
import type { AuditBackend } from './backend.js';
import { microTime, nowMicros, type AuditEvent, type AuditObjectReference, type AuditResponseStatus, type AuditUserInfo } from './event.js';
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

/**
 * The event as a RequestAudit starts it, its fields in the order of an object literal's. Made by a
 * constructor: V8 then leaves room inside the object for the fields added later (user agent,
 * object reference, timestamps, annotations, status: in-object slack tracking), where a literal
 * has room for its own nine only and the later ones went into a separate store, allocated and
 * grown twice an event.
 */
class EventRecord {
  declare kind: 'Event';
  declare apiVersion: 'audit.k8s.io/v1';
  declare level: AuditEvent['level'];
  declare auditID: string;
  declare stage: AuditStage;
  declare requestURI: string;
  declare verb: string;
  declare user: AuditUserInfo;
  declare sourceIPs: readonly string[];

  constructor(level: AuditEvent['level'], auditID: string, requestURI: string, verb: string, user: AuditUserInfo, sourceIPs: readonly string[]) {
    this.kind = 'Event';
    this.apiVersion = 'audit.k8s.io/v1';
    this.level = level;
    this.auditID = auditID;
    this.stage = 'RequestReceived';
    this.requestURI = requestURI;
    this.verb = verb;
    this.user = user;
    this.sourceIPs = sourceIPs;
  }
}

export class RequestAudit {
  readonly event: AuditEvent;
  private codeSet = false;
  /** The last stage went out with the event itself: nothing may change it any more. */
  private sealed = false;

  constructor(
    readonly config: RequestAuditConfig,
    private readonly backend: AuditBackend,
    private readonly metrics: AuditMetrics,
    init: RequestAuditInit,
  ) {
    const received = microTime(init.requestReceivedMicros);
    let userAgent = init.userAgent;
    if (userAgent !== undefined && userAgent.length > maxUserAgentLength) userAgent = userAgent.slice(0, maxUserAgentLength) + userAgentTruncateSuffix;
    const event = new EventRecord(config.level, init.auditID, init.requestURI, init.verb, init.user ?? {}, init.sourceIPs) as AuditEvent;
    // Assigned one by one rather than spread from conditional literals: no throw-away objects.
    if (userAgent !== undefined) event.userAgent = userAgent;
    if (init.objectRef) event.objectRef = init.objectRef;
    event.requestReceivedTimestamp = received;
    event.stageTimestamp = received;
    this.event = event;
  }

  get level() {
    return this.config.level;
  }

  /** Adds an annotation unless one with the key is there already (kube keeps the first and logs the clash). */
  addAnnotation(key: string, value: string): void {
    if (this.sealed) return;
    let annotations = (this.event.annotations ??= {});
    if (key in annotations) return;
    // Shared (frozen) authorization annotations: this event's own copy takes the new one.
    if (Object.isFrozen(annotations)) annotations = this.event.annotations = { ...annotations };
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
    if (this.event.annotations === undefined) {
      let shared = sharedAuthorization;
      if (shared['authorization.k8s.io/decision'] !== decision || shared['authorization.k8s.io/reason'] !== reason) {
        // Literal keys (decisionAnnotationKey, reasonAnnotationKey): computed ones are keyed stores again.
        shared = sharedAuthorization = Object.freeze({ 'authorization.k8s.io/decision': decision, 'authorization.k8s.io/reason': reason });
      }
      this.event.annotations = shared;
      return;
    }
    this.addAnnotation(decisionAnnotationKey, decision);
    this.addAnnotation(reasonAnnotationKey, reason);
  }

  logImpersonatedUser(user: AuditUserInfo): void {
    if (this.sealed) return;
    this.event.impersonatedUser = user;
  }

  /** The decoded body of a create, update or delete (Request level and above); fills the object reference at every level. */
  logRequestObject(obj: unknown): void {
    if (this.sealed) return;
    this.fillObjectRef(obj);
    if (levelLess(this.config.level, 'Request')) return;
    this.event.requestObject = recordable(obj, this.config.omitManagedFields);
  }

  /** A patch body as sent (Request level and above). */
  logRequestPatch(patch: unknown): void {
    if (this.sealed || levelLess(this.config.level, 'Request')) return;
    this.event.requestObject = patch;
  }

  /** What the response carries: a Status sets responseStatus; the object itself is kept at RequestResponse. */
  logResponseObject(obj: unknown): void {
    if (this.sealed) return;
    const status = asStatus(obj);
    if (status) this.event.responseStatus = status;
    if (levelLess(this.config.level, 'RequestResponse')) return;
    this.event.responseObject = recordable(obj, this.config.omitManagedFields);
  }

  /** The response's HTTP status, from the first header written. Returns true the first time. */
  setResponseCode(code: number): boolean {
    if (this.codeSet || this.sealed) return false;
    this.codeSet = true;
    if (this.event.responseStatus) this.event.responseStatus.code ??= code;
    else this.event.responseStatus = codeStatus(code);
    return true;
  }

  setResponseStatus(status: AuditResponseStatus): void {
    if (this.sealed) return;
    this.event.responseStatus = status;
  }

  /** Sends the event at `stage` unless the policy omits that stage; false when the backend could not store it. */
  processStage(stage: AuditStage): boolean | Promise<boolean> {
    if (this.config.omitStages.has(stage)) return true;
    const ev = this.event;
    this.metrics.event();
    if (stage === 'ResponseComplete' || stage === 'Panic') {
      // The last stage hands over the event itself, sealed, instead of a copy: nothing may change
      // it afterwards, and with ResponseComplete alone (the recommended policy) no event is copied.
      this.sealed = true;
      ev.stage = stage;
      ev.stageTimestamp = microTime(nowMicros());
      return this.backend.processEvents([ev]);
    }
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
    let ref = (this.event.objectRef ??= {});
    // Shared with other requests (frozen, see the audit filter): this event's own copy takes the fields.
    if (Object.isFrozen(ref)) ref = this.event.objectRef = { ...ref };
    if (!ref.namespace && typeof meta.namespace === 'string' && meta.namespace) ref.namespace = meta.namespace;
    if (!ref.name && typeof meta.name === 'string' && meta.name) ref.name = meta.name;
    if (!ref.uid && typeof meta.uid === 'string' && meta.uid) ref.uid = meta.uid;
    if (!ref.resourceVersion && typeof meta.resourceVersion === 'string' && meta.resourceVersion) ref.resourceVersion = meta.resourceVersion;
  }
}
