import { newBadRequest } from '@plat/api-model';

/**
 * Decoding of the review requests kubectl sends as `application/vnd.kubernetes.protobuf` (its
 * typed clients for authentication.k8s.io and authorization.k8s.io do not fall back to JSON for
 * request bodies). The server answers JSON, which those clients accept. Only the protobuf wire
 * format and the field numbers of the review kinds are needed (k8s.io/api generated.proto):
 * a hand-written reader of a few dozen lines instead of a schema compiler.
 */

export const protobufMediaType = 'application/vnd.kubernetes.protobuf';
const magic = Buffer.from([0x6b, 0x38, 0x73, 0x00]); // "k8s\0"

type Fields = Map<number, (Buffer | number)[]>;

/** Malformed wire data; private to this reader, answered as a 400 by decodeProtobufReview. */
class ProtobufDecodeError extends Error {}

/** Splits one message into its fields (varints as numbers, length-delimited as bytes). */
function fields(buf: Buffer): Fields {
  const out: Fields = new Map();
  let pos = 0;
  const varint = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (pos >= buf.length) throw new ProtobufDecodeError('truncated varint');
      const b = buf[pos++]!;
      result += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return result;
      shift += 7;
      if (shift > 63) throw new ProtobufDecodeError('varint too long');
    }
  };
  while (pos < buf.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key & 7;
    let value: Buffer | number;
    if (wire === 0) value = varint();
    else if (wire === 2) {
      const len = varint();
      if (pos + len > buf.length) throw new ProtobufDecodeError('truncated field');
      value = buf.subarray(pos, pos + len);
      pos += len;
    } else if (wire === 1) {
      pos += 8;
      continue;
    } else if (wire === 5) {
      pos += 4;
      continue;
    } else throw new ProtobufDecodeError(`unsupported wire type ${wire}`);
    const list = out.get(field) ?? [];
    list.push(value);
    out.set(field, list);
  }
  return out;
}

function bytes(f: Fields, n: number): Buffer | undefined {
  const v = f.get(n)?.at(-1);
  return Buffer.isBuffer(v) ? v : undefined;
}

function str(f: Fields, n: number): string | undefined {
  const v = bytes(f, n);
  return v === undefined ? undefined : v.toString('utf8');
}

function strings(f: Fields, n: number): string[] {
  return (f.get(n) ?? []).filter(Buffer.isBuffer).map((b) => b.toString('utf8'));
}

/** Keeps only the non-empty string fields (Go's omitempty in the JSON form). */
function compact(obj: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(obj).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '')) as Record<string, string>;
}

function objectMeta(buf: Buffer | undefined): Record<string, string> | undefined {
  if (!buf) return undefined;
  const f = fields(buf);
  const meta = compact({ name: str(f, 1), generateName: str(f, 2), namespace: str(f, 3) });
  return Object.keys(meta).length ? meta : undefined;
}

function resourceAttributes(buf: Buffer): Record<string, string> {
  const f = fields(buf);
  return compact({
    namespace: str(f, 1),
    verb: str(f, 2),
    group: str(f, 3),
    version: str(f, 4),
    resource: str(f, 5),
    subresource: str(f, 6),
    name: str(f, 7),
  });
}

function reviewSpec(buf: Buffer | undefined, withSubject: boolean): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  if (!buf) return spec;
  const f = fields(buf);
  const ra = bytes(f, 1);
  if (ra) spec.resourceAttributes = resourceAttributes(ra);
  const nra = bytes(f, 2);
  if (nra) {
    const n = fields(nra);
    spec.nonResourceAttributes = compact({ path: str(n, 1), verb: str(n, 2) });
  }
  if (withSubject) {
    const user = str(f, 3);
    if (user) spec.user = user;
    const groups = strings(f, 4);
    if (groups.length) spec.groups = groups;
    const extra: Record<string, string[]> = {};
    for (const entry of (f.get(5) ?? []).filter(Buffer.isBuffer)) {
      const e = fields(entry);
      const key = str(e, 1) ?? '';
      const value = bytes(e, 2);
      extra[key] = value ? strings(fields(value), 1) : [];
    }
    if (Object.keys(extra).length) spec.extra = extra;
    const uid = str(f, 6);
    if (uid) spec.uid = uid;
  }
  return spec;
}

/**
 * Decodes a protobuf review body into its JSON form: `{apiVersion, kind, metadata?, spec?}`.
 * Malformed input is a 400, as Kubernetes' decoder answers.
 */
export function decodeProtobufReview(body: Buffer): Record<string, unknown> {
  if (body.length < magic.length || !body.subarray(0, magic.length).equals(magic)) {
    throw newBadRequest('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  }
  try {
    const unknown = fields(body.subarray(magic.length));
    const typeMeta = fields(bytes(unknown, 1) ?? Buffer.alloc(0));
    const obj: Record<string, unknown> = { apiVersion: str(typeMeta, 1), kind: str(typeMeta, 2) };
    const raw = fields(bytes(unknown, 2) ?? Buffer.alloc(0));
    const meta = objectMeta(bytes(raw, 1));
    if (meta) obj.metadata = meta;
    if (obj.kind === 'SelfSubjectAccessReview' || obj.kind === 'SubjectAccessReview') {
      obj.spec = reviewSpec(bytes(raw, 2), obj.kind === 'SubjectAccessReview');
    } else if (obj.kind === 'SelfSubjectRulesReview') {
      // SelfSubjectRulesReviewSpec: namespace = 1.
      obj.spec = compact({ namespace: str(fields(bytes(raw, 2) ?? Buffer.alloc(0)), 1) });
    }
    return obj;
  } catch (err) {
    if (!(err instanceof ProtobufDecodeError)) throw err;
    throw newBadRequest(`unable to decode the protobuf body: ${err.message}`);
  }
}
