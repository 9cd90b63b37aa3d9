/**
 * An event's JSON, byte for byte what `JSON.stringify` (with @plat/api-model's encodeJson for
 * int64 values) writes for it, made from pieces that repeat from one event to the next: the user,
 * the source IPs, the User-Agent, the object reference and the annotations of a busy server's
 * events are mostly those of the event before. Each of them is compared with the last one seen
 * under its key and, when equal, its JSON is reused instead of serialised again; the rest
 * (audit ID, request URI, timestamps, response status, request and response objects) is encoded
 * as it comes. Keys go out in the event's own order, so the line is the one JSON.stringify writes.
 *
 * What this buys: JSON.stringify of the whole ~730-byte Metadata event of a GET was about 40 % of
 * what auditing adds to a GET on the server (perf, tools/bench/audit/profile.mjs);
 * encodeEventJson writes the same line in 0.6 µs against 1.5 µs (event-json.mjs micro-benchmark
 * of tools/bench/audit, load 6).
 */
import { encodeJson } from '@plat/api-model';
import type { AuditEvent } from './event.js';

/**
 * The last value seen under one key and its JSON: a flat object whose values are strings or lists
 * of strings (user, objectRef, annotations), compared entry by entry in key order.
 */
class FlatMemo {
  private keys: string[] = [];
  private values: Array<string | readonly string[]> = [];
  private json = '';

  /** The JSON of `value`, reused when it equals the last one; undefined when `value` is not flat. */
  encode(value: object): string | undefined {
    if (this.matches(value)) return this.json;
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

const userMemo = new FlatMemo();
const objectRefMemo = new FlatMemo();
const annotationsMemo = new FlatMemo();
const impersonatedMemo = new FlatMemo();
// The server hands the same (frozen) source IP list to every request of the same direct client.
let lastSourceIPs: readonly string[] | undefined;
let lastSourceIPsJson = '';
let lastUserAgent: string | undefined;
let lastUserAgentJson = '';

/** What JSON.stringify escapes in a string (a lone surrogate too). */
const needsEscape = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * A string field's JSON, reused while the value stays the same. JSON.stringify of a short string
 * was about 0.15 µs a call, seven an event (more than the rest of the line); a string with nothing
 * to escape is only put in quotes, and level, stage, verb and request URI mostly repeat.
 */
class StringMemo {
  private last: string | undefined;
  private json = '';

  encode(value: string): string {
    if (value === this.last) return this.json;
    this.last = value;
    this.json = needsEscape.test(value) ? JSON.stringify(value) : `"${value}"`;
    return this.json;
  }
}

const strings = {
  kind: new StringMemo(),
  apiVersion: new StringMemo(),
  level: new StringMemo(),
  auditID: new StringMemo(),
  stage: new StringMemo(),
  requestURI: new StringMemo(),
  verb: new StringMemo(),
  requestReceivedTimestamp: new StringMemo(),
  stageTimestamp: new StringMemo(),
};

function flat(memo: FlatMemo, value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return encodeJson(value);
  return memo.encode(value) ?? encodeJson(value);
}

/** `{"metadata":{},"code":200}`, the status of every success, without the serialiser. */
function responseStatusJson(value: unknown): string | undefined {
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
      if (first === 'metadata' && typeof meta === 'object' && meta !== null && !Array.isArray(meta) && isEmpty(meta)) return `{"metadata":{},"code":${s.code}}`;
    }
  }
  return encodeJson(value);
}

function isEmpty(o: object): boolean {
  for (const _ in o) return false;
  return true;
}

const opening: Record<string, string> = Object.create(null);
const separating: Record<string, string> = Object.create(null);

/** The event as one line of JSON (no newline), as `encodeJson(ev)` writes it. */
export function encodeEventJson(ev: AuditEvent): string {
  let out = '';
  for (const key in ev) {
    const value = (ev as unknown as Record<string, unknown>)[key];
    let json: string | undefined;
    // Each known key with its separator as one constant: fewer pieces for the line's string to join.
    switch (key) {
      case 'kind':
      case 'apiVersion':
      case 'level':
      case 'auditID':
      case 'stage':
      case 'requestURI':
      case 'verb':
      case 'requestReceivedTimestamp':
      case 'stageTimestamp':
        json = typeof value === 'string' ? strings[key].encode(value) : encodeJson(value);
        break;
      case 'user':
        json = flat(userMemo, value);
        break;
      case 'impersonatedUser':
        json = flat(impersonatedMemo, value);
        break;
      case 'objectRef':
        json = flat(objectRefMemo, value);
        break;
      case 'annotations':
        json = flat(annotationsMemo, value);
        break;
      case 'sourceIPs':
        if (value !== lastSourceIPs || lastSourceIPsJson === '') {
          json = encodeJson(value);
          if (Array.isArray(value) && Object.isFrozen(value)) {
            lastSourceIPs = value;
            lastSourceIPsJson = json ?? '';
          }
        } else {
          json = lastSourceIPsJson;
        }
        break;
      case 'userAgent':
        if (value !== lastUserAgent || lastUserAgentJson === '') {
          json = encodeJson(value);
          if (typeof value === 'string') {
            lastUserAgent = value;
            lastUserAgentJson = json;
          }
        } else {
          json = lastUserAgentJson;
        }
        break;
      case 'responseStatus':
        json = responseStatusJson(value);
        break;
      default:
        json = encodeJson(value);
        // As JSON.stringify: a key whose value has no JSON (undefined, a function) is left out.
        if (json !== undefined) out += `${out === '' ? '{' : ','}${JSON.stringify(key)}:${json}`;
        continue;
    }
    if (json === undefined) continue;
    // `"key":` made once per key name (an event has a handful), so the line is fewer pieces to join.
    out += out === '' ? (opening[key] ??= `{"${key}":`) : (separating[key] ??= `,"${key}":`);
    out += json;
  }
  return out === '' ? '{}' : `${out}}`;
}
