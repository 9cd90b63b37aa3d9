/**
 * The steps every kind shares before its own validation: strict decoding, the apiVersion/kind
 * check, and the schema check. A file with the wrong apiVersion or kind is not looked at further,
 * as Kubernetes' decoder would not get that far either.
 */
import { fieldError, type FieldError } from '@plat/api-model';
import type { z } from 'zod';
import { decodeConfigText, DecodeError } from './decode.js';
import { apiVersion, parseWithSchema } from './schemas.js';

export type ConfigKind =
  | 'AuthenticationConfiguration'
  | 'AuthorizationConfiguration'
  | 'EgressSelectorConfiguration'
  | 'TracingConfiguration'
  | 'Policy';

/** The outcome of a `load*()`: the validated, defaulted object, or field errors; warnings either way. */
export type LoadResult<T> =
  | { ok: true; config: T; warnings: string[] }
  | { ok: false; errors: FieldError[]; warnings: string[] };

export type DocumentResult<T> = { ok: true; value: T | undefined } | { ok: false; errors: FieldError[] };

/** Text of a file given as a string or bytes (UTF-8, a leading BOM ignored). */
export function configText(data: string | Uint8Array): string {
  const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Decodes a file of the given kind. An empty file (no document) yields `value: undefined`; the
 * caller decides whether that is valid (TracingConfiguration) or not.
 */
export function decodeDocument<T extends { apiVersion?: string; kind?: string }>(
  data: string | Uint8Array,
  kind: ConfigKind,
  schema: z.ZodType<T>,
  apiVersions: readonly string[] = [apiVersion],
): DocumentResult<T> {
  const decoded = decodeConfigText(configText(data));
  if (!decoded.ok) return decoded;
  const value = decoded.value;
  if (value === undefined) return { ok: true, value: undefined };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, errors: [new DecodeError('', `a ${kind} must be a YAML or JSON object, not ${Array.isArray(value) ? 'a list' : typeof value}`)] };
  }
  const record = value as Record<string, unknown>;
  const errors: FieldError[] = [];
  if (record.kind === undefined || record.kind === '') errors.push(fieldError.required('kind', `must be "${kind}"`));
  else if (record.kind !== kind) errors.push(fieldError.invalid('kind', record.kind, `must be "${kind}"`));
  if (record.apiVersion === undefined || record.apiVersion === '') errors.push(fieldError.required('apiVersion', `must be "${apiVersions[0]}"`));
  else if (typeof record.apiVersion !== 'string' || !apiVersions.includes(record.apiVersion)) errors.push(fieldError.notSupported('apiVersion', record.apiVersion, apiVersions));
  if (errors.length > 0) return { ok: false, errors };
  const parsed = parseWithSchema(schema, value);
  if (!parsed.ok) return parsed;
  return { ok: true, value: parsed.value };
}

/** A whole-file error such as "the file is empty", printed without a field path. */
export function fileError(message: string): FieldError {
  return new DecodeError('', message);
}
