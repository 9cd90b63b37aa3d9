/**
 * The `audit.k8s.io/v1` Event as every audit pipeline parses it (k8s.io/apiserver
 * `pkg/apis/audit/v1/types.go`), its JSON line, and the legacy one-line text (`pkg/audit/format.go`
 * EventString).
 */
import { encodeJson } from '@plat/api-model';
import type { AuditLevel, AuditStage } from '@plat/config';

export interface AuditUserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface AuditObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/** The bounded fields of a metav1.Status that an event keeps. */
export interface AuditResponseStatus {
  metadata: Record<string, never>;
  status?: string;
  message?: string;
  reason?: string;
  details?: unknown;
  code?: number;
}

export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: AuditLevel;
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  verb: string;
  user: AuditUserInfo;
  impersonatedUser?: AuditUserInfo;
  sourceIPs?: readonly string[];
  userAgent?: string;
  objectRef?: AuditObjectReference;
  responseStatus?: AuditResponseStatus;
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

// The date and time to the second (with the dot), kept while it stays the same second: most events
// of a busy server share it, and formatting a Date is a good part of an event's cost.
let cachedSecond = NaN;
let cachedPrefix = '';

// The microseconds as two three-digit strings from a table: turning the number into a string was
// about 0.2 µs of each call (String().padStart: 330 against 140 ns a call in a micro-benchmark of the two
// at load 14), and an event takes two.
const threeDigits: readonly string[] = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

// The same with the closing `Z`, and the date and time to the millisecond kept while it stays the
// same millisecond: a time is then one concatenation, not three (each longer than 12 characters
// is a rope V8 allocates and later flattens), about 20 events a millisecond on a busy server.
const threeDigitsZ: readonly string[] = threeDigits.map((d) => `${d}Z`);
let cachedMilli = NaN;
let cachedMilliPrefix = '';

/** metav1.MicroTime in JSON: RFC 3339 with exactly six fractional digits, UTC. */
export function microTime(epochMicros: number): string {
  const whole = Math.floor(epochMicros);
  const milli = Math.floor(whole / 1000);
  if (milli !== cachedMilli) {
    const second = Math.floor(milli / 1000);
    if (second !== cachedSecond) {
      cachedSecond = second;
      cachedPrefix = `${new Date(second * 1000).toISOString().slice(0, 19)}.`; // 2006-01-02T15:04:05.
    }
    cachedMilli = milli;
    cachedMilliPrefix = cachedPrefix + threeDigits[milli - second * 1000]!;
  }
  return cachedMilliPrefix + threeDigitsZ[whole - milli * 1000]!;
}

/**
 * The date and time to the second with the dot (`2006-01-02T15:04:05.`) as bytes, kept while it
 * stays the same second, for writeMicroTime.
 */
let bytesSecond = NaN;
let secondBytes: Uint8Array = new Uint8Array(0);

/**
 * microTime(epochMicros)'s characters (ASCII) written into `buf` from `at`, up to `end`: where they
 * end, or -1 when they do not fit. What the log backend's slab encoder writes for an event whose
 * timestamp strings were never made (EventRecord): no string of a time is built, and none read
 * back byte by byte (a time is a rope of two pieces; reading one flattened it first).
 */
export function writeMicroTime(epochMicros: number, buf: Uint8Array, at: number, end: number): number {
  const whole = Math.floor(epochMicros);
  const second = Math.floor(whole / 1_000_000);
  const prefix = secondPrefixBytes(second);
  const n = prefix.length;
  if (at + n + 7 > end) return -1;
  for (let i = 0; i < n; i++) buf[at + i] = prefix[i]!;
  writeMicroDigits(whole - second * 1_000_000, buf, at + n);
  buf[at + n + 6] = 0x5a; // Z
  return at + n + 7;
}

/**
 * The bytes of `2006-01-02T15:04:05.` for the epoch second `second` (Math.floor of the
 * microseconds ÷ 1,000,000): 20 for the years 0–9999, more for the years JavaScript writes with
 * six digits and a sign.
 */
export function secondPrefixBytes(second: number): Uint8Array {
  if (second !== bytesSecond) {
    bytesSecond = second;
    secondBytes = Buffer.from(`${new Date(second * 1000).toISOString().slice(0, 19)}.`, 'latin1');
  }
  return secondBytes;
}

// The ASCII digits of 00 to 99, two bytes each.
const digitPairs = Uint8Array.from({ length: 200 }, (_, i) => 0x30 + (i & 1 ? (i >> 1) % 10 : Math.floor((i >> 1) / 10)));

/**
 * The six digits of a second's microseconds (`fraction`, a whole number 0–999,999) written into
 * `buf` from `at` (room checked by the caller): three pairs from a table with two integer
 * divisions, 11 against 24 ns for six divisions of a double by ten (a micro-benchmark, taskset -c 1);
 * the digits loop was a fifth of encodeSame's ticks in a CPU profile.
 */
export function writeMicroDigits(fraction: number, buf: Uint8Array, at: number): void {
  const f = fraction | 0;
  const high = (f / 10000) | 0;
  const rest = f - high * 10000;
  const middle = (rest / 100) | 0;
  const h = high * 2;
  const m = middle * 2;
  const l = (rest - middle * 100) * 2;
  buf[at] = digitPairs[h]!;
  buf[at + 1] = digitPairs[h + 1]!;
  buf[at + 2] = digitPairs[m]!;
  buf[at + 3] = digitPairs[m + 1]!;
  buf[at + 4] = digitPairs[l]!;
  buf[at + 5] = digitPairs[l + 1]!;
}

// performance.timeOrigin is a call into the runtime on every access (about 0.1 µs, two a request);
// it never changes, so it is read once.
const timeOrigin = performance.timeOrigin;
// The global `performance` is a getter on globalThis: read by name it was a LoadGlobalIC miss on
// every event (about 0.15 µs a GET, perf at load 9); held here it is a constant.
const clock = performance;

/** Now, in microseconds since the epoch (Date.now() is only milliseconds). */
export function nowMicros(): number {
  return Math.round((timeOrigin + clock.now()) * 1000);
}

/**
 * The event as a RequestAudit builds it, its fields in the order of an object literal's. Made by a
 * constructor: V8 then leaves room inside the object for the fields added later (user agent,
 * object reference, timestamps, annotations, status: in-object slack tracking), where a literal
 * has room for its own nine only and the later ones went into a separate store, allocated and
 * grown twice an event.
 *
 * Its two times are kept in microseconds, and their strings are made only when something reads
 * the object as an event (makeTimestamps; RequestAudit makes them before it hands the event to a
 * backend other than the log's in batch mode, and for `RequestAudit.event`). Until then both
 * timestamp fields hold '' (so that the keys keep their place), and the log backend's slab
 * encoder writes the times' digits from the numbers (writeMicroTime).
 */
export class EventRecord {
  declare kind: 'Event';
  declare apiVersion: 'audit.k8s.io/v1';
  declare level: AuditLevel;
  declare auditID: string;
  declare stage: AuditStage;
  declare requestURI: string;
  declare verb: string;
  declare user: AuditUserInfo;
  declare sourceIPs: readonly string[];
  declare userAgent?: string;
  declare objectRef?: AuditObjectReference;
  declare requestReceivedTimestamp: string;
  declare stageTimestamp: string;
  // Private fields: no key of the event (JSON, for…in and spreads leave them out).
  #receivedMicros = 0;
  #stageMicros = 0;
  #timesMade = false;

  constructor(level: AuditLevel, auditID: string, requestURI: string, verb: string, user: AuditUserInfo, sourceIPs: readonly string[]) {
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

  /** Adds the two timestamp fields (both the time the request was received), where the keys go. */
  startTimes(receivedMicros: number): void {
    this.#receivedMicros = receivedMicros;
    this.#stageMicros = receivedMicros;
    this.requestReceivedTimestamp = '';
    this.stageTimestamp = '';
  }

  setStageMicros(micros: number): void {
    this.#stageMicros = micros;
    if (this.#timesMade) this.stageTimestamp = microTime(micros);
  }

  /** The timestamp strings, from now on kept up to date. */
  makeTimestamps(): void {
    if (this.#timesMade) return;
    this.#timesMade = true;
    this.requestReceivedTimestamp = microTime(this.#receivedMicros);
    this.stageTimestamp = microTime(this.#stageMicros);
  }

  /** The received time in microseconds while the strings are not made, else -1. */
  pendingReceivedMicros(): number {
    return this.#timesMade ? -1 : this.#receivedMicros;
  }

  pendingStageMicros(): number {
    return this.#timesMade ? -1 : this.#stageMicros;
  }
}

/** Gives an event its timestamp strings if it has not got them yet (an EventRecord); any other event has them. */
export function makeTimestamps(ev: AuditEvent): void {
  if (ev instanceof EventRecord) ev.makeTimestamps();
}

/** One event as the JSON line the log backend writes (newline-terminated). */
export function encodeEventLine(ev: AuditEvent): string {
  makeTimestamps(ev);
  return `${encodeJson(ev)}\n`;
}

function goQuoted(s: string): string {
  return JSON.stringify(s);
}

function quotedList(list: readonly string[]): string {
  return list.map(goQuoted).join(',');
}

/** Kubernetes' legacy format: `<time> AUDIT: id="..." stage="..." ip="..." method="..." user="..." ...`. */
export function eventString(ev: AuditEvent): string {
  makeTimestamps(ev);
  let username = '<none>';
  let groups = '<none>';
  if (ev.user.username) {
    username = ev.user.username;
    if (ev.user.groups && ev.user.groups.length > 0) groups = quotedList(ev.user.groups);
  }
  let asUser = '<self>';
  let asGroups = '<lookup>';
  if (ev.impersonatedUser) {
    asUser = ev.impersonatedUser.username ?? '';
    if (ev.impersonatedUser.groups) asGroups = quotedList(ev.impersonatedUser.groups);
  }
  const namespace = ev.objectRef?.namespace || '<none>';
  const response = ev.responseStatus ? String(ev.responseStatus.code ?? 0) : '<deferred>';
  const ip = ev.sourceIPs?.[0] ?? '<unknown>';
  return (
    `${rfc3339Nano(ev.requestReceivedTimestamp)} AUDIT: id=${goQuoted(ev.auditID)} stage=${goQuoted(ev.stage)} ip=${goQuoted(ip)} method=${goQuoted(ev.verb)} ` +
    `user=${goQuoted(username)} groups=${goQuoted(groups)} as=${goQuoted(asUser)} asgroups=${goQuoted(asGroups)} user-agent=${goQuoted(ev.userAgent ?? '')} ` +
    `namespace=${goQuoted(namespace)} uri=${goQuoted(ev.requestURI)} response="${response}"`
  );
}

// Go's time.RFC3339Nano drops trailing zeros of the fraction.
function rfc3339Nano(micro: string): string {
  return micro.replace(/\.(\d*?)0+Z$/, (_m, digits: string) => (digits ? `.${digits}Z` : 'Z'));
}
