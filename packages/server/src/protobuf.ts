import assert from 'node:assert/strict';
import { JsonDecodeError, decodeJson, newBadRequest, newUnsupportedMediaType } from '@plat/api-model';

/**
 * Decoding of request bodies sent as `application/vnd.kubernetes.protobuf`: kubectl's typed
 * clients (`create clusterrole|clusterrolebinding|role|rolebinding|namespace`, `auth reconcile`,
 * `auth whoami`, `auth can-i`) send the kinds they know in protobuf and do not fall back to
 * JSON for request bodies; they accept JSON answers, which is what the server sends. Only the
 * protobuf wire format, the envelope (runtime.Unknown), meta/v1's messages and the field numbers
 * of the kinds served are needed: a small table-driven reader, whose tables
 * tools/kube-codegen/generate.mjs writes from k8s.io/api and k8s.io/apimachinery generated.proto
 * (read there with protobufjs). Each resource brings its kind's message
 * (ResourceDefinition.protobuf). Fields a client left at Go's zero value ("", 0, false, empty)
 * are absent in the result, as in Kubernetes' JSON (omitempty); times become RFC 3339 strings.
 */

export const protobufMediaType = 'application/vnd.kubernetes.protobuf';
const magic = Buffer.from([0x6b, 0x38, 0x73, 0x00]); // "k8s\0"

/** Malformed wire data; private to this reader, answered as a 400 by decodeProtobufObject (anything else is a bug: 500). */
class ProtobufDecodeError extends Error {}

/** How a field's bytes become JSON. */
export type FieldType =
  | 'string'
  | 'int'
  | 'bool'
  | 'time'
  /** meta/v1 FieldsV1: its `Raw` (field 1) holds the JSON of a managedFields entry's fieldsV1. */
  | 'fieldsV1'
  /** map<string, string>: entries of key = 1, value = 2. */
  | 'stringMap'
  /** authorization/v1 ExtraValue map: entries of key = 1 and ExtraValue { items = 1 }. */
  | 'extraMap'
  | MessageSpec;

/** One field of a message: its JSON name and how its bytes become JSON. */
export interface ProtobufField {
  name: string;
  type: FieldType;
  repeated?: boolean;
}

/** A message: its fields by number (what a client sends beyond them is skipped). */
export type ProtobufMessage = { readonly [field: number]: ProtobufField };
type MessageSpec = ProtobufMessage;
type FieldSpec = ProtobufField;

// The meta/v1 messages, generated from k8s.io/apimachinery's generated.proto (tools/kube-codegen);
// each resource's own message comes from the same generator (ResourceDefinition.protobuf).
export { labelSelectorMessage, listMetaMessage, objectMetaMessage, selectorRequirementMessage } from './protobuf-messages.generated.js';

type Fields = Map<number, (Buffer | bigint)[]>;

/** runtime.TypeMeta of the runtime.Unknown envelope (k8s.io/apimachinery pkg/runtime generated.proto). */
const typeMetaMessage: MessageSpec = { 1: { name: 'apiVersion', type: 'string' }, 2: { name: 'kind', type: 'string' } };

/** Splits one message into its fields (varints as bigints, length-delimited as bytes). */
function fields(buf: Buffer): Fields {
  const out: Fields = new Map();
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw new ProtobufDecodeError('truncated varint');
      const b = buf[pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return result;
      shift += 7n;
      if (shift > 63n) throw new ProtobufDecodeError('varint too long');
    }
  };
  while (pos < buf.length) {
    const key = varint();
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    let value: Buffer | bigint;
    if (wire === 0) value = varint();
    else if (wire === 2) {
      const len = Number(varint());
      if (pos + len > buf.length) throw new ProtobufDecodeError('truncated field');
      value = buf.subarray(pos, pos + len);
      pos += len;
    } else if (wire === 1 || wire === 5) {
      pos += wire === 1 ? 8 : 4;
      if (pos > buf.length) throw new ProtobufDecodeError('truncated field');
      continue;
    } else throw new ProtobufDecodeError(`unsupported wire type ${wire}`);
    const list = out.get(field);
    if (list) list.push(value);
    else out.set(field, [value]);
  }
  return out;
}

/** A varint as Go's int64 (two's complement). */
const int64 = (v: bigint): bigint => (v >= 1n << 63n ? v - (1n << 64n) : v);

function bytesOf(v: Buffer | bigint): Buffer {
  if (!Buffer.isBuffer(v)) throw new ProtobufDecodeError('a length-delimited field holds a number');
  return v;
}

function numberOf(v: Buffer | bigint): bigint {
  if (Buffer.isBuffer(v)) throw new ProtobufDecodeError('a number field holds bytes');
  return v;
}

/** meta/v1 Time: seconds and nanos since the epoch; Go's zero time (or none) is absent. */
function time(buf: Buffer): string | undefined {
  const f = fields(buf);
  const seconds = int64(numberOf(f.get(1)?.at(-1) ?? 0n));
  if (seconds <= 0n) return undefined;
  return new Date(Number(seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function mapEntries(values: (Buffer | bigint)[], value: (v: Buffer | undefined) => unknown): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const entry of values) {
    const f = fields(bytesOf(entry));
    const key = f.get(1)?.at(-1);
    const v = f.get(2)?.at(-1);
    out[key ? bytesOf(key).toString('utf8') : ''] = value(v === undefined ? undefined : bytesOf(v));
  }
  return Object.keys(out).length ? out : undefined;
}

function fieldValue(spec: FieldSpec, raw: Buffer | bigint): unknown {
  switch (spec.type) {
    case 'string':
      return bytesOf(raw).toString('utf8');
    case 'int': {
      const n = int64(numberOf(raw));
      return Number.isSafeInteger(Number(n)) ? Number(n) : n;
    }
    case 'bool':
      return numberOf(raw) !== 0n;
    case 'time':
      return time(bytesOf(raw));
    case 'fieldsV1': {
      const rawJson = fields(bytesOf(raw)).get(1)?.at(-1);
      if (rawJson === undefined) return undefined;
      try {
        return decodeJson(bytesOf(rawJson).toString('utf8')).value;
      } catch (err) {
        if (err instanceof JsonDecodeError) throw new ProtobufDecodeError(`fieldsV1: ${err.message}`);
        throw err;
      }
    }
    case 'stringMap':
    case 'extraMap':
      return assert.fail('a map is decoded from all its entries, in decodeMessage');
    default:
      return decodeMessage(bytesOf(raw), spec.type);
  }
}

/** Go's zero values, left out as Kubernetes' JSON omits them. */
const isZero = (v: unknown): boolean =>
  v === undefined || v === '' || v === 0 || v === false || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0);

function decodeMessage(buf: Buffer, spec: MessageSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [n, values] of fields(buf)) {
    const field = spec[n];
    if (!field) continue;
    let value: unknown;
    if (field.type === 'stringMap') value = mapEntries(values, (v) => (v ? v.toString('utf8') : ''));
    else if (field.type === 'extraMap') value = mapEntries(values, (v) => (v ? (fields(v).get(1) ?? []).map((i) => bytesOf(i).toString('utf8')) : []));
    else if (field.repeated) value = values.map((v) => fieldValue(field, v)).filter((v) => v !== undefined);
    else value = fieldValue(field, values[values.length - 1]!);
    if (!isZero(value)) out[field.name] = value;
  }
  return out;
}

/**
 * Decodes a protobuf body (runtime.Unknown: TypeMeta, then the object's bytes) into its JSON
 * form: `{apiVersion, kind, ...fields}`. Malformed input is a 400 as Kubernetes' decoder words it;
 * a kind the server cannot read in protobuf is 415, as for a custom resource.
 */
export function decodeProtobufObject(body: Buffer, accepted: readonly string[], kinds: ReadonlyMap<string, ProtobufMessage>): Record<string, unknown> {
  if (body.length < magic.length || !body.subarray(0, magic.length).equals(magic)) {
    throw newBadRequest('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  }
  let unknown: Fields;
  let typeMeta: Record<string, unknown>;
  try {
    unknown = fields(body.subarray(magic.length));
    typeMeta = decodeMessage(bytesOf(unknown.get(1)?.at(-1) ?? Buffer.alloc(0)), typeMetaMessage);
  } catch (err) {
    if (!(err instanceof ProtobufDecodeError)) throw err;
    throw newBadRequest(`unable to decode the protobuf body: ${err.message}`);
  }
  const spec = kinds.get(String(typeMeta.kind ?? ''));
  if (!spec) throw newUnsupportedMediaType(protobufMediaType, accepted);
  try {
    return { ...typeMeta, ...decodeMessage(bytesOf(unknown.get(2)?.at(-1) ?? Buffer.alloc(0)), spec) };
  } catch (err) {
    if (!(err instanceof ProtobufDecodeError)) throw err;
    throw newBadRequest(`unable to decode the protobuf body: ${err.message}`);
  }
}
