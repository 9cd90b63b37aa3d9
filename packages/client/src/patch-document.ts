import { goQuote } from '@plat/api-model';
import { JsonDecodeError, decodeJson, encodeJson } from '@plat/api-model/json';
import { ClientError } from './client-error.js';
import { goJsonSyntaxError } from './go-json-syntax.js';
import { convertYaml } from './go-yaml.js';

/** A patch as `kubectl patch` holds it after yaml.ToJSON. */
export interface PatchDocument {
  /** The request body: the text itself when it starts with `{` (after blanks), else its YAML as JSON. */
  readonly body: string;
  /** The decoded patch (null for an empty or blank text), unless `body` is not valid JSON. */
  readonly value: unknown;
  /** Go's JSON syntax error of a `{` text that is not JSON: the patch libraries refuse it. */
  readonly syntaxError?: string;
}

/**
 * Reads a patch text as kubectl's yaml.ToJSON does: a text starting with `{` is taken as JSON
 * unchanged (YAML flow syntax is not JSON, and fails later, in the patch functions); anything
 * else is YAML, converted to JSON, where an empty or blank text becomes `null`. `flagValue` is
 * what the error quotes: kubectl quotes `-p`, which is empty when the patch came from a file.
 */
export function readPatch(text: string, flagValue: string): PatchDocument {
  if (/^\s*\{/u.test(text)) {
    let syntaxError = goJsonSyntaxError(text);
    if (!syntaxError) {
      // The shared decoder keeps integers past 2^53 exact; its nesting bound refuses like a syntax error.
      try {
        return { body: text, value: decodeJson(text).value };
      } catch (err) {
        if (!(err instanceof JsonDecodeError)) throw err;
        syntaxError = err.message;
      }
    }
    return { body: text, value: undefined, syntaxError };
  }
  const converted = convertYaml(text);
  if (converted.error !== undefined) throw new ClientError('DecodeFailed', `unable to parse ${goQuote(flagValue)}: ${converted.error}`);
  return { body: encodeJson(converted.value ?? null), value: converted.value ?? null };
}
