import { fieldError, type FieldError, goQuote, newBadRequest, newInvalid, validateFieldManager } from '@plat/api-model';
import type { RequestContext } from '../context.js';

/** The group Kubernetes' option kinds (ListOptions, CreateOptions...) belong to. */
const metaGroup = 'meta.k8s.io';

export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions' | 'ListOptions';

export function invalidOptions(kind: OptionsKind, errs: FieldError[]) {
  return newInvalid({ group: metaGroup, kind }, '', errs);
}

/** Go's strconv.ParseInt for an int64 parameter; 400 on anything else. */
export function parseInteger(value: string | null, name: string): number | undefined {
  if (value === null || value === '') return undefined;
  if (!/^[+-]?\d+$/.test(value)) {
    throw newBadRequest(`invalid value for ${name}: strconv.ParseInt: parsing ${goQuote(value)}: invalid syntax`);
  }
  const n = Number(value);
  if (!Number.isSafeInteger(n)) {
    throw newBadRequest(`invalid value for ${name}: strconv.ParseInt: parsing ${goQuote(value)}: value out of range`);
  }
  return n;
}

/** `dryRun` may be repeated; the only supported value is `All`. */
export function dryRunErrors(values: string[]): FieldError[] {
  const bad = values.filter((v) => v !== 'All');
  if (bad.length === 0) return [];
  return [fieldError.notSupported('dryRun', values, ['All'])];
}

export function parseDryRun(ctx: RequestContext, kind: OptionsKind): boolean {
  const values = ctx.query.getAll('dryRun');
  const errs = dryRunErrors(values);
  if (errs.length) throw invalidOptions(kind, errs);
  return values.length > 0;
}

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** `fieldValidation`: Ignore, Warn (the default since Kubernetes 1.23) or Strict. */
export function parseFieldValidation(ctx: RequestContext, kind: OptionsKind): FieldValidation {
  const v = ctx.query.get('fieldValidation') ?? '';
  if (v === '') return 'Warn';
  if (v === 'Ignore' || v === 'Warn' || v === 'Strict') return v;
  throw invalidOptions(kind, [fieldError.notSupported('fieldValidation', v, ['Ignore', 'Strict', 'Warn'])]);
}

/**
 * The manager recorded in managedFields: `fieldManager`, or the user agent up to its first `/`
 * (Kubernetes' prefixFromUserAgent), at most 128 characters.
 */
export function parseFieldManager(ctx: RequestContext, kind: OptionsKind): string {
  const explicit = ctx.query.get('fieldManager');
  if (explicit !== null && explicit !== '') {
    const errs = validateFieldManager(explicit, 'fieldManager');
    if (errs.length) throw invalidOptions(kind, errs);
    return explicit;
  }
  const ua = String(ctx.req.headers['user-agent'] ?? 'unknown');
  const prefix = ua.split('/')[0] ?? '';
  return [...prefix].slice(0, 128).join('') || 'unknown';
}
