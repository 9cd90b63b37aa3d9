import { fieldError, type FieldError } from './field-error.js';
import type { FieldPath } from './field-path.js';
import { byteLength, emptyError, isDNS1123Subdomain, maxLenError, regexError } from './dns-validation.js';

/**
 * Label keys and values (`k8s.io/apimachinery/pkg/api/validate/content`: IsLabelKey, IsLabelValue).
 * A label key is also what Kubernetes calls a qualified name: annotation keys and finalizers use it.
 */

export const LabelKeyNameMaxLength = 63;
export const LabelValueMaxLength = 63;

const labelKeyFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const labelKeyErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueFmt = `(${labelKeyFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

const isAlnum = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

/** `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`, checked in one pass. */
function matchesLabelKeyName(value: string): boolean {
  const n = value.length;
  if (n === 0) return false;
  if (!isAlnum(value.charCodeAt(0)) || !isAlnum(value.charCodeAt(n - 1))) return false;
  for (let i = 1; i < n - 1; i++) {
    const c = value.charCodeAt(i);
    if (!isAlnum(c) && c !== 0x2d && c !== 0x5f && c !== 0x2e) return false;
  }
  return true;
}

/** Kubernetes' `IsLabelKey` (formerly `IsQualifiedName`): `[prefix/]name`. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else for (const msg of isDNS1123Subdomain(prefix, 'bytes')) errs.push(`prefix part ${msg}`);
  } else {
    errs.push(
      `a valid label key ${regexError(labelKeyErrMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    );
    return errs;
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > LabelKeyNameMaxLength) errs.push(`name part ${maxLenError(LabelKeyNameMaxLength, 'bytes')}`);
  if (!matchesLabelKeyName(name)) errs.push(`name part ${regexError(labelKeyErrMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** Kubernetes' `IsLabelValue`: empty, or a name of at most 63 bytes. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LabelValueMaxLength) errs.push(maxLenError(LabelValueMaxLength, 'bytes'));
  if (value.length !== 0 && !matchesLabelKeyName(value)) {
    errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  }
  return errs;
}

/** Kubernetes' `ValidateLabelName`: one Invalid error per problem of the key. */
export function validateLabelName(labelName: string, path: FieldPath | string): FieldError[] {
  return isQualifiedName(labelName).map((msg) => fieldError.invalid(path, labelName, msg));
}

/** Kubernetes' `ValidateLabels`: every key a qualified name, every value a label value (errors on the map's path). */
export function validateLabels(labels: Readonly<Record<string, string>> | null | undefined, path: FieldPath | string): FieldError[] {
  const errs: FieldError[] = [];
  if (!labels) return errs;
  for (const [k, v] of Object.entries(labels)) {
    errs.push(...validateLabelName(k, path));
    for (const msg of isValidLabelValue(v)) errs.push(fieldError.invalid(path, v, msg));
  }
  return errs;
}
