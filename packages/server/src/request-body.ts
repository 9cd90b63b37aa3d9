import { goQuote, JsonDecodeError, decodeJson, newBadRequest, newRequestEntityTooLarge, newUnsupportedMediaType } from '@plat/api-model';
import { YamlDecodeError, decodeYaml } from '@plat/api-model/yaml';
import type { RequestContext } from './context.js';
import { decodeProtobufObject, protobufMediaType, type ProtobufMessage } from './protobuf.js';

/**
 * Reads the whole body, answering 413 once it passes `limit` bytes (Kubernetes: 3 MiB). Reading
 * stops there without destroying the request: the 413 still has to reach a client that is
 * uploading (unread-body.ts closes the connection or stream after the answer).
 */
export async function readBody(ctx: RequestContext, limit: number): Promise<Buffer> {
  const declared = Number(ctx.req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw newRequestEntityTooLarge(`limit is ${limit}`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req.iterator({ destroyOnReturn: false })) {
    size += chunk.length;
    if (size > limit) throw newRequestEntityTooLarge(`limit is ${limit}`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** The media type of the body without parameters, lower case. */
export function contentTypeOf(ctx: RequestContext): string {
  return String(ctx.req.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
}

export interface DecodedBody {
  value: unknown;
  /**
   * Repeated keys, worded for fieldValidation (only when asked for): `duplicate field "metadata.name"`
   * for JSON, one `yaml: unmarshal errors:` message with a line per repeat for YAML.
   */
  duplicates: string[];
}

const objectMediaTypes = ['application/json', 'application/yaml'];

/**
 * Decodes a JSON or YAML body with the shared decoders (nesting bounded, integers exact, beyond
 * int64 kept as bigint for typed decoding to refuse). Malformed input is 400 BadRequest; other
 * media types are 415. `kind` words the 400 as kube-apiserver's transformDecodeError does for a
 * body whose version and kind cannot even be read: `the object provided is unrecognized (must
 * be of type <Kind>): <error> (<the first bytes>)`; without it the message is the decoder's.
 */
export function decodeBody(body: Buffer, mediaType: string, findDuplicates: boolean, kind?: string): DecodedBody {
  const text = body.toString('utf8');
  const unrecognized = (message: string) =>
    newBadRequest(kind ? `the object provided is unrecognized (must be of type ${kind}): ${message} (${summarizeData(body)})` : message);
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
    try {
      const decoded = decodeJson(text, { findDuplicates, beyondInt64: 'exact' });
      return { value: decoded.value, duplicates: decoded.duplicates.map((path) => `duplicate field ${goQuote(path)}`) };
    } catch (err) {
      if (!(err instanceof JsonDecodeError)) throw err;
      throw unrecognized(`couldn't get version/kind; json parse error: ${err.message}`);
    }
  }
  if (mediaType === 'application/yaml' || mediaType.endsWith('+yaml')) {
    try {
      // kube-apiserver reads YAML bodies with sigs.k8s.io/yaml (go-yaml v2), as kubectl writes them.
      return decodeYaml(text, { findDuplicates, beyondInt64: 'exact', goYaml: true });
    } catch (err) {
      if (!(err instanceof YamlDecodeError)) throw err;
      throw unrecognized(`error converting YAML to JSON: ${err.message}`);
    }
  }
  throw newUnsupportedMediaType(mediaType, objectMediaTypes);
}

/** Kubernetes' summarizeData: the first 30 bytes, as text for a JSON object, else in hex. */
function summarizeData(body: Buffer, maxLength = 30): string {
  if (body.length === 0) return '<empty>';
  const head = body.subarray(0, maxLength);
  const more = body.length > maxLength ? ' ...' : '';
  return body[0] === 0x7b ? `${head.toString('utf8')}${more}` : `${head.toString('hex')}${more}`;
}

/** Decodes an object body for create/update (of `kind`): JSON or YAML holding an object, or Kubernetes protobuf. */
export function decodeObjectBody(
  body: Buffer,
  mediaType: string,
  findDuplicates: boolean,
  kind: string,
  protobufKinds: ReadonlyMap<string, ProtobufMessage>,
): DecodedBody {
  // kubectl's typed clients send the kinds they know (RBAC, Namespace, reviews) in protobuf.
  if (mediaType === protobufMediaType) return { value: decodeProtobufObject(body, objectMediaTypes, protobufKinds), duplicates: [] };
  if (!objectMediaTypes.includes(mediaType)) throw newUnsupportedMediaType(mediaType, objectMediaTypes);
  const decoded = decodeBody(body, mediaType, findDuplicates, kind);
  const v = decoded.value;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw newBadRequest(`the body of the request must be a single object, not ${v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v}`);
  }
  return decoded;
}
