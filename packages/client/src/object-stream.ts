import { goQuote } from '@plat/api-model';
import { JsonDecodeError, decodeJson } from '@plat/api-model/json';
import { ClientError } from './client-error.js';
import { scanJsonStream } from './go-json-syntax.js';
import { convertYaml } from './go-yaml.js';
import { metadataTypeError } from './metadata-validation.js';
import { goJson } from './object-printer.js';
import { decodeUnstructured, type KubeObject } from './unstructured.js';

/**
 * The objects of one input (a file, standard input or a URL) read as kubectl's StreamVisitor
 * reads them, in order. Each failure is handed to `onError` as kubectl reports it:
 * - a document that cannot be decoded (`unable to decode "f.yaml": Object 'Kind' is missing
 *   in '{...}'`, or metadata of the wrong types) is skipped and reading goes on with the next one;
 * - a syntax error ends the input (`error parsing f.json: json: offset 10: ...`), after the
 *   objects before it;
 * - items of a List that cannot be typed are left out and reported together (an
 *   AggregateError), the other items kept.
 */
export function readObjectStream(text: string, source: string, onError: (err: Error) => void): KubeObject[] {
  const objects: KubeObject[] = [];
  const decode = (raw: string, value: unknown) => {
    try {
      const doc = decodeUnstructured(value, raw);
      const metadataError = metadataTypeError(value as Record<string, unknown>);
      if (metadataError) throw new ClientError('DecodeFailed', metadataError);
      objects.push(...doc.objects);
      if (doc.itemErrors) onError(doc.itemErrors);
    } catch (err) {
      if (!(err instanceof ClientError)) throw err;
      // A List holding a list is refused by the flattener, not the decoder.
      onError(err.code === 'FlattenFailed' ? err : new ClientError('DecodeFailed', `unable to decode ${goQuote(source)}: ${err.message}`));
    }
  };
  // FileVisitor drops a UTF-8 byte order mark.
  const body = text.startsWith('\ufeff') ? text.slice(1) : text;
  if (/^\s*\{/u.test(body.slice(0, 4096))) {
    const stream = scanJsonStream(body);
    for (const raw of stream.values) {
      const trimmed = raw.trim();
      if (trimmed === 'null') continue;
      // The shared decoder: integers within int64 exact (bigint past 2^53), nesting bounded.
      let value: unknown;
      try {
        value = decodeJson(trimmed).value;
      } catch (err) {
        if (!(err instanceof JsonDecodeError)) throw err;
        onError(new ClientError('DecodeFailed', `error parsing ${source}: ${err.message}`));
        return objects;
      }
      decode(trimmed, value);
    }
    if (stream.error) onError(new ClientError('DecodeFailed', `error parsing ${source}: ${stream.error}`));
    return objects;
  }
  for (const doc of yamlDocuments(body)) {
    if ('error' in doc) {
      onError(new ClientError('DecodeFailed', `error parsing ${source}: ${doc.error}`));
      break;
    }
    const converted = convertYaml(doc.text);
    if (converted.error !== undefined) {
      onError(new ClientError('DecodeFailed', `error parsing ${source}: error converting YAML to JSON: ${converted.error}`));
      break;
    }
    if (converted.value !== null && converted.value !== undefined) decode(goJson(converted.value, 0), converted.value);
  }
  return objects;
}

/**
 * kubectl's YAMLReader: documents are split at lines starting with `---`, which may be followed
 * only by blanks or a comment; every line keeps a `\n` end.
 */
function* yamlDocuments(text: string): Generator<{ text: string } | { error: string }> {
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  let doc = '';
  for (const line of lines) {
    if (line.startsWith('---')) {
      const rest = line.slice(3).trim();
      if (rest && !rest.startsWith('#')) {
        yield { error: `invalid Yaml document separator: ${rest}` };
        return;
      }
      if (doc) yield { text: doc };
      doc = '';
      continue;
    }
    doc += `${line}\n`;
  }
  if (doc) yield { text: doc };
}

/**
 * Decodes a JSON or (multi-document) YAML stream into objects, List kinds flattened, as kubectl
 * reads a file (readObjectStream); the first failure is thrown.
 */
export function decodeObjects(text: string, source: string): KubeObject[] {
  let first: Error | undefined;
  const objects = readObjectStream(text, source, (err) => {
    first ??= err;
  });
  if (first) throw first;
  return objects;
}
