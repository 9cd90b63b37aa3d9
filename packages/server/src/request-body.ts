import { parseDocument } from 'yaml';
import { newBadRequest, newRequestEntityTooLarge, newUnsupportedMediaType } from '@plat/api-model';
import type { RequestContext } from './context.js';
import { findDuplicateJsonKeys } from './json-duplicates.js';

/** Reads the whole body, answering 413 once it passes `limit` bytes (Kubernetes: 3 MiB). */
export async function readBody(ctx: RequestContext, limit: number): Promise<Buffer> {
  const declared = Number(ctx.req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw newRequestEntityTooLarge(`limit is ${limit}`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
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
 * Decodes a JSON or YAML body. Malformed input is 400 BadRequest with the decoder's message;
 * other media types are 415.
 */
export function decodeBody(body: Buffer, mediaType: string, findDuplicates: boolean): DecodedBody {
  const text = body.toString('utf8');
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw newBadRequest(`json parse error: ${(err as Error).message}`);
    }
    const paths = findDuplicates ? findDuplicateJsonKeys(text) : [];
    return { value, duplicates: paths.map((path) => `duplicate field ${JSON.stringify(path)}`) };
  }
  if (mediaType === 'application/yaml' || mediaType.endsWith('+yaml')) {
    return decodeYaml(text, findDuplicates);
  }
  throw newUnsupportedMediaType(mediaType, objectMediaTypes);
}

function decodeYaml(text: string, findDuplicates: boolean): DecodedBody {
  const doc = parseDocument(text, { uniqueKeys: false, prettyErrors: false });
  if (doc.errors.length) {
    throw newBadRequest(`error converting YAML to JSON: yaml: ${doc.errors[0]!.message}`);
  }
  const value: unknown = doc.toJS({ maxAliasCount: 100 });
  const duplicates: string[] = [];
  if (findDuplicates) {
    const strict = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
    // Worded as the YAML decoder of Kubernetes reports repeated keys.
    const lines = strict.errors
      .filter((e) => e.code === 'DUPLICATE_KEY')
      .map((e) => {
        const line = lineOf(text, e.pos[0]);
        const key = keyAt(text, e.pos[0]);
        return `  line ${line}: key ${JSON.stringify(key)} already set in map`;
      });
    if (lines.length) duplicates.push(`yaml: unmarshal errors:\n${lines.join('\n')}`);
  }
  return { value, duplicates };
}

/** Decodes an object body for create/update: it must be a JSON object. */
export function decodeObjectBody(body: Buffer, mediaType: string, findDuplicates: boolean): DecodedBody {
  if (!objectMediaTypes.includes(mediaType)) throw newUnsupportedMediaType(mediaType, objectMediaTypes);
  const decoded = decodeBody(body, mediaType, findDuplicates);
  const v = decoded.value;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw newBadRequest(`the body of the request must be a single object, not ${v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v}`);
  }
  return decoded;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The mapping key written at `offset` (plain or quoted). */
function keyAt(text: string, offset: number): string {
  const rest = text.slice(offset);
  const quoted = /^(["'])((?:\\.|(?!\1).)*)\1/.exec(rest);
  if (quoted) return quoted[2]!;
  return (/^[^:\n]*/.exec(rest)?.[0] ?? '').trim();
}
