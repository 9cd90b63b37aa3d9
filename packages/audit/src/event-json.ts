/**
 * An event's JSON, byte for byte what `JSON.stringify` (with @plat/api-model's encodeJson for
 * int64 values) writes for it, made from pieces that repeat from one event to the next: the user,
 * the source IPs, the User-Agent, the object reference and the annotations of a busy server's
 * events are mostly those of the event before, as are level, stage, verb and request URI. Each
 * is compared with the last one seen under its key and, when equal, its JSON is reused instead of
 * serialised again; the rest (audit ID, timestamps, request and response objects) is encoded as it
 * comes. Keys go out in the event's own order, so the line is the one JSON.stringify writes (a
 * property test holds the two to the same bytes).
 *
 * What this buys: JSON.stringify of the whole ~730-byte Metadata event of a GET was about 40 % of
 * what auditing adds to a GET on the server (perf, tools/bench/audit/profile.mjs). encodeEventJson
 * writes the same line in 0.34 against 1.79 µs, 1.84 against 2.77 µs with the slab's write
 * (tools/bench/audit/event-json.mjs, load 7); the audit filter with the batch log backend costs
 * 0.80× what it did with JSON.stringify (filter-ab.mjs, n=9). Memory: one event's worth of pieces.
 */
import { encodeJson } from '@plat/api-model';
import { EventRecord, makeTimestamps, secondPrefixBytes, writeMicroDigits, writeMicroTime, type AuditEvent } from './event.js';

/**
 * The last value seen under one key and its JSON: a flat object whose values are strings or lists
 * of strings (user, objectRef, annotations), compared entry by entry in key order.
 */
class FlatMemo {
  private keys: string[] = [];
  private values: Array<string | readonly string[]> = [];
  private json = '';
  /**
   * The last value itself when it is frozen with its lists (nothing can change it): the same
   * object again needs no comparison. The server shares such objects between requests (a client
   * certificate's user, an unchanged object reference, the authorization annotations). With
   * the shared pieces of request-audit.ts and the audit filter, measured together: the real
   * server's CPU a GET with auditing on 0.952–0.966× of what it was (inprocess.mjs --audit-both, n=10).
   */
  private ref: object | undefined;

  /** `value` is the frozen value whose JSON this memo holds (nothing can have changed it). */
  holds(value: unknown): boolean {
    return value === this.ref;
  }

  /** The JSON of `value`, reused when it equals the last one; undefined when `value` is not flat. */
  encode(value: object): string | undefined {
    if (value === this.ref) return this.json;
    if (this.matches(value)) {
      this.ref = frozenFlat(value) ? value : undefined;
      return this.json;
    }
    const keys: string[] = [];
    const values: Array<string | readonly string[]> = [];
    for (const key in value) {
      const v = (value as Record<string, unknown>)[key];
      if (typeof v === 'string') values.push(v);
      else if (Array.isArray(v) && v.every((s) => typeof s === 'string')) values.push([...(v as string[])]);
      else return undefined;
      keys.push(key);
    }
    this.keys = keys;
    this.values = values;
    this.json = JSON.stringify(value);
    this.ref = frozenFlat(value) ? value : undefined;
    return this.json;
  }

  private matches(value: object): boolean {
    const { keys, values } = this;
    let i = 0;
    for (const key in value) {
      if (i >= keys.length || key !== keys[i]) return false;
      const v = (value as Record<string, unknown>)[key];
      const held = values[i++]!;
      if (typeof held === 'string') {
        if (v !== held) return false;
      } else {
        if (!Array.isArray(v) || v.length !== held.length) return false;
        for (let j = 0; j < held.length; j++) if (v[j] !== held[j]) return false;
      }
    }
    return i === keys.length && this.json !== '';
  }
}

/** A flat value (strings and lists of strings) that can never change: frozen, and its lists too. */
function frozenFlat(value: object): boolean {
  if (!Object.isFrozen(value)) return false;
  for (const key in value) {
    const v = (value as Record<string, unknown>)[key];
    if (typeof v !== 'string' && !Object.isFrozen(v)) return false;
  }
  return true;
}

const userMemo = new FlatMemo();
const objectRefMemo = new FlatMemo();
const annotationsMemo = new FlatMemo();
const impersonatedMemo = new FlatMemo();
// Compared by content: each connection has a list of its own (many connections, one client).
let lastSourceIPs: readonly string[] | undefined;
let lastSourceIPsJson = '';
let lastUserAgent: string | undefined;
let lastUserAgentJson = '';

/** What JSON.stringify escapes in a string (a lone surrogate too). */
const needsEscape = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * The strings of the event being encoded that no memo knew yet (audit ID, timestamps), checked
 * for what JSON escapes all at once when the line is done: one test of them together instead of
 * one each was about 0.2 µs an event (filter.mjs, CPU profile at load 6).
 */
let unchecked = '';

/**
 * A string field's JSON, reused while the value stays the same. JSON.stringify of a short string
 * was about 0.15 µs a call, seven an event (more than the rest of the line); a string with nothing
 * to escape is only put in quotes, and level, stage, verb and request URI mostly repeat. A new
 * value goes in quotes at once and into `unchecked`; the line is written by JSON.stringify instead
 * (and the memos forget) when one of them has something to escape.
 */
class StringMemo {
  private last: string | undefined;
  private json = '';

  encode(value: string): string {
    if (value === this.last) return this.json;
    unchecked += value;
    this.last = value;
    this.json = `"${value}"`;
    return this.json;
  }

  forget(): void {
    this.last = undefined;
  }
}

const kindMemo = new StringMemo();
const apiVersionMemo = new StringMemo();
const levelMemo = new StringMemo();
const auditIDMemo = new StringMemo();
const stageMemo = new StringMemo();
const requestURIMemo = new StringMemo();
const verbMemo = new StringMemo();
const receivedMemo = new StringMemo();
const stageTimestampMemo = new StringMemo();
const stringMemos = [kindMemo, apiVersionMemo, levelMemo, auditIDMemo, stageMemo, requestURIMemo, verbMemo, receivedMemo, stageTimestampMemo];

function sameStrings(value: unknown, held: readonly string[] | undefined): boolean {
  if (held === undefined || !Array.isArray(value) || value.length !== held.length) return false;
  for (let i = 0; i < held.length; i++) if (value[i] !== held[i]) return false;
  return true;
}

function flat(memo: FlatMemo, value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return encodeJson(value);
  return memo.encode(value) ?? encodeJson(value);
}

let lastCode = NaN;
let lastStatusJson = '';
/** The last status of that shape when it was frozen (the server shares one per code): the same object again needs no checks. */
let lastStatus: unknown;

/** `{"metadata":{},"code":200}`, the status of every success, without the serialiser. */
function responseStatusJson(value: unknown): string | undefined {
  if (value === lastStatus) return lastStatusJson;
  if (typeof value === 'object' && value !== null) {
    const s = value as Record<string, unknown>;
    let n = 0;
    for (const _ in s) n++;
    if (n === 2 && typeof s.code === 'number' && Number.isInteger(s.code)) {
      const meta = s.metadata;
      let first = '';
      for (const key in s) {
        first = key;
        break;
      }
      if (first === 'metadata' && typeof meta === 'object' && meta !== null && !Array.isArray(meta) && isEmpty(meta)) {
        if (s.code !== lastCode) {
          lastCode = s.code;
          lastStatusJson = `{"metadata":{},"code":${s.code}}`;
        }
        lastStatus = Object.isFrozen(s) && Object.isFrozen(meta) ? s : undefined;
        return lastStatusJson;
      }
    }
  }
  return encodeJson(value);
}

function isEmpty(o: object): boolean {
  for (const _ in o) return false;
  return true;
}

function str(memo: StringMemo, value: unknown): string | undefined {
  return typeof value === 'string' ? memo.encode(value) : encodeJson(value);
}

/** The event's keys this encoder knows, each with its own memo; their index is the key's kind. */
const knownKeys = ['kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'user', 'impersonatedUser', 'sourceIPs', 'userAgent', 'objectRef', 'responseStatus', 'requestReceivedTimestamp', 'stageTimestamp', 'annotations'];
// Their kinds, in knownKeys' order.
const KIND = 0;
const API_VERSION = 1;
const LEVEL = 2;
const AUDIT_ID = 3;
const STAGE = 4;
const REQUEST_URI = 5;
const VERB = 6;
const USER = 7;
const IMPERSONATED_USER = 8;
const SOURCE_IPS = 9;
const USER_AGENT = 10;
const OBJECT_REF = 11;
const RESPONSE_STATUS = 12;
const RECEIVED = 13;
const STAGE_TIMESTAMP = 14;
const ANNOTATIONS = 15;
/** Each known key's name as it goes in the line, first (`{"kind":`) or after another (`,"kind":`). */
const firstNames = knownKeys.map((k) => `{"${k}":`);
const nextNames = knownKeys.map((k) => `,"${k}":`);
/** The same with the opening quote of a string value (encodeEventInto's changing values). */
const firstValueNames = firstNames.map((n) => `${n}"`);
const nextValueNames = nextNames.map((n) => `${n}"`);

/**
 * The kind of the key met at each position of the last events (-1: not a known key). Events are
 * built alike, so a key is mostly the one met at its position before (one comparison of two
 * internalised strings by reference) instead of being looked for among sixteen names (a switch
 * over strings compared them one after the other, about eight an event's key). Bounded: keys
 * past the first 32 of an event are looked up each time.
 */
const keyAt: string[] = [];
const kindAt: number[] = [];
const maxKeyPositions = 32;

function kindOf(position: number, key: string): number {
  if (keyAt[position] === key) return kindAt[position]!;
  const kind = knownKeys.indexOf(key);
  if (position < maxKeyPositions && position <= keyAt.length) {
    keyAt[position] = key;
    kindAt[position] = kind;
  }
  return kind;
}

/** The name (with the `{` or `,` before it) of the piece pieceOf() returned last. */
let pieceName = '';
/** pieceOf() was asked for only the known keys' pieces and met another key. */
let unknownKey = false;

/**
 * One key's piece of the line: its value's JSON (undefined when it has none), and in `pieceName`
 * the key as it goes before it.
 */
function pieceOf(kind: number, key: string, value: unknown, first: boolean, onlyKnown: boolean): string | undefined {
  let piece: string | undefined;
  // Each known key with a memo of its own, chosen by its kind: looking a memo up by the key's
  // name was a megamorphic keyed load each, fifteen an event.
  switch (kind) {
    case KIND:
      piece = str(kindMemo, value);
      break;
    case API_VERSION:
      piece = str(apiVersionMemo, value);
      break;
    case LEVEL:
      piece = str(levelMemo, value);
      break;
    case AUDIT_ID:
      piece = str(auditIDMemo, value);
      break;
    case STAGE:
      piece = str(stageMemo, value);
      break;
    case REQUEST_URI:
      piece = str(requestURIMemo, value);
      break;
    case VERB:
      piece = str(verbMemo, value);
      break;
    case USER:
      piece = flat(userMemo, value);
      break;
    case IMPERSONATED_USER:
      piece = flat(impersonatedMemo, value);
      break;
    case SOURCE_IPS:
      if (sameStrings(value, lastSourceIPs)) {
        piece = lastSourceIPsJson;
      } else {
        piece = encodeJson(value);
        if (Array.isArray(value) && piece !== undefined && value.every((ip) => typeof ip === 'string')) {
          lastSourceIPs = [...(value as string[])];
          lastSourceIPsJson = piece;
        }
      }
      break;
    case USER_AGENT:
      if (value !== lastUserAgent || lastUserAgentJson === '') {
        piece = encodeJson(value);
        if (typeof value === 'string') {
          lastUserAgent = value;
          lastUserAgentJson = piece;
        }
      } else {
        piece = lastUserAgentJson;
      }
      break;
    case OBJECT_REF:
      piece = flat(objectRefMemo, value);
      break;
    case RESPONSE_STATUS:
      piece = responseStatusJson(value);
      break;
    case RECEIVED:
      piece = str(receivedMemo, value);
      break;
    case STAGE_TIMESTAMP:
      piece = str(stageTimestampMemo, value);
      break;
    case ANNOTATIONS:
      piece = flat(annotationsMemo, value);
      break;
    default:
      // requestObject, responseObject, and whatever else an event carries.
      if (onlyKnown) {
        unknownKey = true;
        return undefined;
      }
      pieceName = `${first ? '{' : ','}${JSON.stringify(key)}:`;
      return encodeJson(value);
  }
  pieceName = first ? firstNames[kind]! : nextNames[kind]!;
  return piece;
}

/** The event as one line of JSON (no newline), as `encodeJson(ev)` writes it. */
export function encodeEventJson(ev: AuditEvent): string {
  makeTimestamps(ev);
  unchecked = '';
  let out = '';
  let first = true;
  let position = 0;
  for (const key in ev) {
    const json = pieceOf(kindOf(position++, key), key, (ev as unknown as Record<string, unknown>)[key], first, false);
    // As JSON.stringify: a key whose value has no JSON (undefined, a function) is left out.
    if (json === undefined) continue;
    out += pieceName;
    out += json;
    first = false;
  }
  if (unchecked !== '' && needsEscape.test(unchecked)) {
    for (const memo of stringMemos) memo.forget();
    return encodeJson(ev);
  }
  return first ? '{}' : `${out}}`;
}

/**
 * The same line written straight into `buf` from `at` (up to `end`), for the log backend's slab in
 * batch mode: encodeEventJson's pieces, but the runs of them between the values that change from
 * event to event (audit ID, request URI, the two timestamps) are kept as bytes while their pieces
 * stay the same and copied in one `set` each, and the changing values are written byte by byte.
 * Returns where the line ends, or -1 when it did not take this path (a changing value that is not
 * plain ASCII or needs escaping, a piece that needs escaping, a request or response object, no
 * room): nothing counts as written then, and encodeEventJson writes the line.
 *
 * What this buys: the line string (15 pieces joined) is never built, flattened and encoded again
 * into the slab by `Buffer.write` (perf had the slab's write at 1.1–1.4 inflated µs a GET against
 * encodeEventJson's 2.0–2.5): a GET's event costs 1.03 [0.96–1.22] against 1.49 [1.24–1.75] µs
 * with the slab's write (tools/bench/audit/event-json.mjs, n=9, load 1.5), and the audit filter
 * with the batch log backend 0.86 [0.64–1.04] and 0.91 [0.51–1.22] of what it cost before
 * (filter-ab.mjs 0aafd80, n=9, two runs at load 2.0 and 1.0). Memory: at most five runs' bytes,
 * together one Metadata event's line (events with request or response objects do not take it).
 */
export function encodeEventInto(ev: AuditEvent, buf: Uint8Array, at: number, end: number): number {
  const record = ev instanceof EventRecord ? ev : undefined;
  if (sameCount >= 0) {
    const stop = encodeSame(ev, record, buf, at, end);
    if (stop !== notSame) return stop < 0 ? declined() : stop;
  }
  return encodeRuns(ev, record, buf, at, end);
}

/**
 * What the last line encodeRuns wrote had at each key position, for encodeSame: the key, its
 * value, and what encodeSame does there (`roleAt`): check that the value is the same again, or
 * write one of the changing values (audit ID, request URI, the two times). `sameCount`: its number
 * of keys, or -1 when encodeSame cannot follow it: the last line declined, or one of its values
 * cannot be trusted to give the same JSON again when it is the same (only strings, numbers and
 * the frozen user, object reference, annotations, status and source IP list, which no one can
 * change, can). Not followed, an event goes to encodeRuns at once, without a failed walk of its
 * keys (the events of a user who is not frozen, as a token's); followed, a key costs one check
 * less: a GET's event built and written 0.977, 0.969 and 0.984 of the time it took (medians;
 * tools/bench/audit/encode-ab.mjs, pinned, n=21, three runs at load 2.5).
 */
const sameKeyAt: string[] = [];
const sameValueAt: unknown[] = [];
const roleAt: number[] = [];
const SAME = 0;
const WRITE_RECEIVED = 1;
const WRITE_STAGE = 2;
const WRITE_URI = 3;
const WRITE_PLAIN = 4;
let sameCount = -1;
const notSame = -2;

/**
 * The line of an event whose keys and unchanging values are those of the last line encodeRuns
 * wrote, the same values by identity: the last such line with its changing values patched in
 * (the template below), or its runs' bytes with the changing values between them. Returns notSame
 * as soon as a key or value differs (nothing counts as written then), -1 when a changing value
 * cannot be written plainly or there is no room. A GET's event has the same user, source IPs,
 * User-Agent, object reference, annotations and status as the one before, all shared frozen
 * objects: no piece is looked up, compared or kept again. A GET's event built and
 * written 0.733, 0.738 and 0.751 of the time it took (tools/bench/audit/encode-ab.mjs 9de4551,
 * pinned, n=21, three runs at load 4.7–8.7); the real server's CPU a GET with auditing on 0.928
 * [0.860–0.962] of 66be0f1's with the request URI's bytes (below), −4.7 µs at load 7–9
 * (inprocess.mjs --audit-both, n=10). Memory: the last line's values by reference, one event's worth.
 */
function encodeSame(ev: AuditEvent, record: EventRecord | undefined, buf: Uint8Array, at: number, end: number): number {
  let position = 0;
  let slot = 0;
  for (const key in ev) {
    const p = position++;
    if (p >= sameCount || sameKeyAt[p] !== key) return notSame;
    const value = (ev as unknown as Record<string, unknown>)[key];
    if (roleAt[p] === SAME) {
      if (value !== sameValueAt[p]) return notSame;
      continue;
    }
    if (typeof value !== 'string') return notSame;
    slotValue[slot++] = value;
  }
  if (position !== sameCount) return notSame;
  const line = template;
  if (line !== undefined && at + line.length <= end) {
    const fits = patchTemplate(line, record);
    if (fits > 0) {
      buf.set(line, at);
      return at + line.length;
    }
    if (fits < 0) return -1;
  }
  return writeSameRuns(record, buf, at, end);
}

/**
 * The last line encodeSame wrote, whole (`template`), with where each changing value is in it
 * (`slotAt`, `slotLength`, in the line's order; `slotRole`: roleAt's role of each), the URI it
 * holds and the second whose `2006-01-02T15:04:05.` each time holds (NaN: not a time's). The next
 * line whose changing values have the same lengths (a UUID audit ID is always 36 bytes, a time of
 * the years 0–9999 27, the URI mostly the same again) is that line with its values patched in
 * place: the audit ID and the times' six digits, the URI only when it differs, a time's 20-byte
 * date and second only when the second does, and then copied with one `set` instead of five runs
 * with the values between them (`set` costs about 28 ns a call however short the run). A value of
 * another length goes run by run (writeSameRuns), and that line becomes the template; so does the
 * first line encodeSame writes after encodeRuns, so that a line no event follows costs no copy.
 *
 * What this buys: a GET's event built and written into the slab 0.842 [0.733–1.304], 0.816
 * [0.649–1.334] and 0.780 [0.566–0.996] of the time it took, 140–210 ns less an event (with
 * writeMicroDigits' table; tools/bench/audit/encode-ab.mjs 015d378, taskset -c 1, n=21, three runs
 * at load 2.3–2.6; the same tree on both sides 0.992 [0.881–1.214]); the template alone 0.841–0.867
 * (four runs, load 1.2–4.5). In a CPU profile the five `set` calls had been ~70 % of encodeSame's
 * ticks; now the audit ID's byte loop and the walk over the keys are most of them. Memory: one more
 * line's bytes, only of a line encodeSame follows (a Metadata event without request or response
 * objects, ~730 bytes for a GET).
 */
let template: Uint8Array | undefined;
let slotCount = 0;
const slotRole: number[] = [0, 0, 0, 0];
const slotValue: string[] = ['', '', '', ''];
const slotAt: number[] = [0, 0, 0, 0];
const slotLength: number[] = [0, 0, 0, 0];
const slotSecond: number[] = [NaN, NaN, NaN, NaN];
let templateURI: string | undefined;

/**
 * Writes the changing values of the event encodeSame walked (slotValue) into the template: 1 when
 * all fit, 0 when one has another length (the template still whole, each slot's value or second as
 * its bookkeeping says), -1 when one cannot be written plainly.
 */
function patchTemplate(line: Uint8Array, record: EventRecord | undefined): number {
  for (let i = 0; i < slotCount; i++) {
    const role = slotRole[i];
    const value = slotValue[i]!;
    const at = slotAt[i]!;
    const length = slotLength[i]!;
    if (role === WRITE_RECEIVED || role === WRITE_STAGE) {
      const pending = record === undefined ? -1 : role === WRITE_RECEIVED ? record.pendingReceivedMicros() : record.pendingStageMicros();
      if (pending >= 0) {
        const whole = Math.floor(pending);
        const second = Math.floor(whole / 1_000_000);
        if (second !== slotSecond[i]) {
          const prefix = secondPrefixBytes(second);
          // 20 bytes (microTime's slice(0, 19) and the dot) whatever the year: checked all the same.
          if (prefix.length + 7 !== length) return 0;
          line.set(prefix, at);
          line[at + length - 1] = 0x5a; // Z
          slotSecond[i] = second;
        }
        writeMicroDigits(whole - second * 1_000_000, line, at + length - 7);
        continue;
      }
    } else if (role === WRITE_URI) {
      if (value === templateURI) continue;
      if (value.length !== length) return 0;
      templateURI = undefined;
      if (writePlainAscii(value, line, at, at + length) < 0) return -1;
      templateURI = value;
      continue;
    }
    if (value.length !== length) return 0;
    slotSecond[i] = NaN;
    if (writePlainAscii(value, line, at, at + length) < 0) return -1;
  }
  return 1;
}

/** encodeSame's line run by run with the changing values between them; on success it becomes the template. */
function writeSameRuns(record: EventRecord | undefined, buf: Uint8Array, at: number, end: number): number {
  template = undefined;
  const start = at;
  for (let i = 0; i < slotCount; i++) {
    const bytes = runs[i]!.bytes;
    if (at + bytes.length > end) return -1;
    buf.set(bytes, at);
    at += bytes.length;
    const role = slotRole[i];
    const value = slotValue[i]!;
    const pending = record === undefined ? -1 : role === WRITE_RECEIVED ? record.pendingReceivedMicros() : role === WRITE_STAGE ? record.pendingStageMicros() : -1;
    const from = at;
    at = pending >= 0 ? writeMicroTime(pending, buf, at, end) : role === WRITE_URI ? writeRequestURI(value, buf, at, end) : writePlainAscii(value, buf, at, end);
    if (at < 0) return -1;
    slotAt[i] = from - start;
    slotLength[i] = at - from;
    slotSecond[i] = pending >= 0 ? Math.floor(Math.floor(pending) / 1_000_000) : NaN;
    if (role === WRITE_URI) templateURI = value;
  }
  const bytes = runs[slotCount]!.bytes;
  if (at + bytes.length > end) return -1;
  buf.set(bytes, at);
  at += bytes.length;
  template = new Uint8Array(buf.subarray(start, at));
  return at;
}

/** Whether `value`, the same again, gives the JSON its memo gave it now (see sameValueAt). */
function stable(kind: number, value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return typeof value !== 'function';
  switch (kind) {
    case USER:
      return userMemo.holds(value);
    case IMPERSONATED_USER:
      return impersonatedMemo.holds(value);
    case OBJECT_REF:
      return objectRefMemo.holds(value);
    case ANNOTATIONS:
      return annotationsMemo.holds(value);
    case RESPONSE_STATUS:
      return value === lastStatus;
    case SOURCE_IPS:
      return Object.isFrozen(value);
    default:
      return false;
  }
}

function encodeRuns(ev: AuditEvent, record: EventRecord | undefined, buf: Uint8Array, at: number, end: number): number {
  sameCount = -1;
  template = undefined;
  slotCount = 0;
  unchecked = '';
  unknownKey = false;
  let followable = true;
  runIndex = 0;
  startRun();
  let first = true;
  let position = 0;
  for (const key in ev) {
    const value = (ev as unknown as Record<string, unknown>)[key];
    const p = position++;
    const kind = kindOf(p, key);
    sameKeyAt[p] = key;
    sameValueAt[p] = value;
    roleAt[p] = SAME;
    if (typeof value === 'string') {
      if (kind === AUDIT_ID || kind === REQUEST_URI || kind === RECEIVED || kind === STAGE_TIMESTAMP) {
        const role = kind === RECEIVED ? WRITE_RECEIVED : kind === STAGE_TIMESTAMP ? WRITE_STAGE : kind === REQUEST_URI ? WRITE_URI : WRITE_PLAIN;
        roleAt[p] = role;
        slotRole[slotCount++] = role;
        // An event whose timestamp strings are not made yet: the times are written from their microseconds.
        // The name with the value's opening quote.
        addPiece(first ? firstValueNames[kind]! : nextValueNames[kind]!);
        at = endRun(buf, at, end);
        if (at < 0) return declined();
        const pending = record === undefined ? -1 : kind === RECEIVED ? record.pendingReceivedMicros() : kind === STAGE_TIMESTAMP ? record.pendingStageMicros() : -1;
        at = pending >= 0 ? writeMicroTime(pending, buf, at, end) : kind === REQUEST_URI ? writeRequestURI(value, buf, at, end) : writePlainAscii(value, buf, at, end);
        if (at < 0) return declined();
        startRun();
        addPiece('"');
        first = false;
        continue;
      }
    }
    const json = pieceOf(kind, key, value, first, true);
    if (json === undefined) {
      // A request or response object (Request level and up) changes with every event: kept as a
      // run's bytes it would be encoded twice and held until the next event; the string path takes it.
      if (unknownKey) return declined();
      if (value !== undefined) followable = false;
      continue;
    }
    if (!stable(kind, value)) followable = false;
    addPiece(pieceName);
    addPiece(json);
    first = false;
  }
  addPiece(first ? '{}' : '}');
  at = endRun(buf, at, end);
  if (at < 0 || (unchecked !== '' && needsEscape.test(unchecked))) return declined();
  // Keys past the positions kindOf keeps are looked up each time: such an event is not followed.
  if (position <= maxKeyPositions && followable) sameCount = position;
  return at;
}

/**
 * A run of pieces and its bytes. Pieces are compared as strings (the memos hand back the same
 * string while their value stays the same, so mostly by reference): equal pieces, equal bytes.
 * An event has at most four changing values, so at most five runs.
 */
interface Run {
  pieces: string[];
  bytes: Uint8Array;
}

const runs: Run[] = Array.from({ length: 5 }, () => ({ pieces: [], bytes: new Uint8Array(0) }));
const runPieces: string[] = [];
let runIndex = 0;
let runLength = 0;
let runSame = true;
let runHeld: string[] = [];

function startRun(): void {
  runLength = 0;
  runSame = true;
  runHeld = runs[runIndex]!.pieces;
}

function addPiece(piece: string): void {
  if (runSame && (runLength >= runHeld.length || runHeld[runLength] !== piece)) runSame = false;
  runPieces[runLength++] = piece;
}

/** Copies the run's bytes to `buf` at `at` (made anew when its pieces changed); -1 when they do not fit. */
function endRun(buf: Uint8Array, at: number, end: number): number {
  const run = runs[runIndex++]!;
  if (!runSame || runLength !== run.pieces.length) {
    const pieces = runPieces.slice(0, runLength);
    run.pieces = pieces;
    run.bytes = Buffer.from(pieces.join(''));
  }
  const bytes = run.bytes;
  if (at + bytes.length > end) return -1;
  buf.set(bytes, at);
  return at + bytes.length;
}

/**
 * The last request URI encodeEventInto wrote and, once it came again, its bytes: the next event
 * with the same URI (a client reading one object again and again) copies them with one `set`
 * instead of checking and writing it character by character: a GET's event built and written
 * 0.925 [0.726–1.031] of the time it took (tools/bench/audit/encode-ab.mjs 66be0f1, pinned, n=21,
 * load 4.4; the same tree on both sides 0.997 [0.806–1.285]). Memory: one URI's bytes.
 */
let lastURI: string | undefined;
let lastURIBytes: Uint8Array | undefined;

function writeRequestURI(s: string, buf: Uint8Array, at: number, end: number): number {
  if (s === lastURI) {
    const bytes = lastURIBytes;
    if (bytes !== undefined) {
      if (at + bytes.length > end) return -1;
      buf.set(bytes, at);
      return at + bytes.length;
    }
    const stop = writePlainAscii(s, buf, at, end);
    if (stop >= 0) lastURIBytes = new Uint8Array(buf.subarray(at, stop));
    return stop;
  }
  const stop = writePlainAscii(s, buf, at, end);
  // Only a URI that went in plainly (the same one again goes the same way).
  lastURI = stop >= 0 ? s : undefined;
  lastURIBytes = undefined;
  return stop;
}

/** Writes `s` as it goes in a JSON string when it is printable ASCII with nothing to escape; -1 otherwise. */
function writePlainAscii(s: string, buf: Uint8Array, at: number, end: number): number {
  const n = s.length;
  if (at + n > end) return -1;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || c > 0x7f) return -1;
    buf[at + i] = c;
  }
  return at + n;
}

/**
 * The path was not taken: the string memos forget, so that the pieces they handed out unchecked
 * are checked again when encodeEventJson writes the line.
 */
function declined(): number {
  for (const memo of stringMemos) memo.forget();
  return -1;
}
