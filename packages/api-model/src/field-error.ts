import { FieldPath } from './field-path.js';
import { goQuote } from './go-quote.js';

/** Kubernetes' field error types (`k8s.io/apimachinery/pkg/util/validation/field`). */
export const FieldErrorType = {
  NotFound: 'FieldValueNotFound',
  Required: 'FieldValueRequired',
  Duplicate: 'FieldValueDuplicate',
  Invalid: 'FieldValueInvalid',
  NotSupported: 'FieldValueNotSupported',
  Forbidden: 'FieldValueForbidden',
  TooLong: 'FieldValueTooLong',
  TooMany: 'FieldValueTooMany',
  Internal: 'InternalError',
} as const;
export type FieldErrorType = (typeof FieldErrorType)[keyof typeof FieldErrorType];

const typeText: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
};

/** Marks an error whose bad value is not printed (Kubernetes' `omitValue`). */
export const omitValue = Symbol('omitValue');

/**
 * A bad value whose printed form is given as is: what Go prints for a `fmt.Stringer` (a time, a
 * quantity) or a `%#v` rendering, e.g. `fieldError.invalid(p, rawValue('2024-01-02 03:04:05 +0000 UTC'), ...)`.
 */
export class RawFieldValue {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}
export const rawValue = (text: string): RawFieldValue => new RawFieldValue(text);

/** Prints a bad value the way Kubernetes' field.Error does. */
function formatValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof RawFieldValue) return value.text;
  // A Go []string prints with %#v: []string{"a", "b"}.
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
    return `[]string{${value.map((v) => goQuote(v as string)).join(', ')}}`;
  }
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

export class FieldError {
  constructor(
    readonly type: FieldErrorType,
    readonly field: string,
    readonly badValue: unknown,
    readonly detail: string,
  ) {}

  /** The text after the field path, e.g. `Invalid value: "x": must be https`. */
  body(): string {
    let s: string;
    const text = typeText[this.type];
    if (
      this.type === FieldErrorType.Required ||
      this.type === FieldErrorType.Forbidden ||
      this.type === FieldErrorType.TooLong ||
      this.type === FieldErrorType.Internal ||
      this.badValue === omitValue
    ) {
      s = text;
    } else {
      s = `${text}: ${formatValue(this.badValue)}`;
    }
    if (this.detail) s += `: ${this.detail}`;
    return s;
  }

  /** Kubernetes' exact `field: body` format (the field is left out when empty). */
  toString(): string {
    return this.field ? `${this.field}: ${this.body()}` : this.body();
  }

  /** The same error moved under another path, e.g. to report a file-relative path. */
  withField(field: string): FieldError {
    return new FieldError(this.type, field, this.badValue, this.detail);
  }
}

type PathLike = FieldPath | string;
const str = (p: PathLike) => (typeof p === 'string' ? p : p.toString());

export const fieldError = {
  required: (path: PathLike, detail = '') => new FieldError(FieldErrorType.Required, str(path), '', detail),
  invalid: (path: PathLike, value: unknown, detail: string) =>
    new FieldError(FieldErrorType.Invalid, str(path), value, detail),
  duplicate: (path: PathLike, value: unknown) => new FieldError(FieldErrorType.Duplicate, str(path), value, ''),
  forbidden: (path: PathLike, detail: string) => new FieldError(FieldErrorType.Forbidden, str(path), '', detail),
  notFound: (path: PathLike, value: unknown) => new FieldError(FieldErrorType.NotFound, str(path), value, ''),
  notSupported: (path: PathLike, value: unknown, validValues: readonly string[] = []) =>
    new FieldError(
      FieldErrorType.NotSupported,
      str(path),
      value,
      validValues.length ? `supported values: ${validValues.map(goQuote).join(', ')}` : '',
    ),
  tooLong: (path: PathLike, value: unknown, maxLength: number) =>
    new FieldError(
      FieldErrorType.TooLong,
      str(path),
      value,
      maxLength >= 0 ? `may not be more than ${maxLength} bytes` : 'value is too long',
    ),
  tooMany: (path: PathLike, actual: number, max: number) =>
    new FieldError(FieldErrorType.TooMany, str(path), actual, max >= 0 ? `must have at most ${max} items` : 'has too many items'),
  internal: (path: PathLike, err: unknown) =>
    new FieldError(FieldErrorType.Internal, str(path), omitValue, err instanceof Error ? err.message : String(err)),
};

export type FieldErrorList = FieldError[];

/**
 * Joins errors like Kubernetes' `ErrorList.ToAggregate().Error()`: one error alone, several in
 * brackets, duplicates removed.
 */
export function aggregateFieldErrors(errors: readonly FieldError[]): string {
  return aggregateMessages(errors.map((e) => e.toString()));
}

/**
 * The text of Go's `utilerrors.NewAggregate(errs).Error()` for errors with these messages: one
 * alone, several in brackets joined by `, `, repeated messages once.
 */
export function aggregateMessages(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  if (unique.length === 1) return unique[0]!;
  return `[${unique.join(', ')}]`;
}

/** Prefixes every error's field with a path, e.g. `spec` + `trustBundle`. */
export function prefixFieldErrors(prefix: string, errors: readonly FieldError[]): FieldError[] {
  return errors.map((e) => e.withField(e.field ? `${prefix}.${e.field}` : prefix));
}
