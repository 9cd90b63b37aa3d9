/**
 * Kubernetes' syntax checks for DNS names (`k8s.io/apimachinery/pkg/util/validation`): each check
 * returns the list of problems as Kubernetes words them, empty when the value is valid.
 *
 * The patterns are checked by linear scanners rather than regular expressions so that a hostile
 * megabyte-long name costs one pass, never a backtracking blow-up.
 */

export const DNS1123LabelMaxLength = 63;
export const DNS1123SubdomainMaxLength = 253;
export const DNS1035LabelMaxLength = 63;

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelErrMsg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

/** The unit Kubernetes names in a max-length message: `util/validation` says characters, `api/validate/content` bytes. */
export type LengthUnit = 'characters' | 'bytes';

/** `must be no more than 63 characters` */
export function maxLenError(length: number, unit: LengthUnit = 'characters'): string {
  return `must be no more than ${length} ${unit}`;
}

/** `must be non-empty` */
export function emptyError(): string {
  return 'must be non-empty';
}

/** Kubernetes' regex failure text: `<msg> (e.g. 'a',  or 'b', regex used for validation is '<fmt>')`. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let out = `${msg} (e.g. `;
  examples.forEach((example, i) => {
    if (i > 0) out += ' or ';
    out += `'${example}', `;
  });
  return `${out}regex used for validation is '${fmt}')`;
}

/** Length in bytes of the UTF-8 encoding, which is what Go's `len` measures. */
export function byteLength(value: string): number {
  // Fast path: pure ASCII strings are one byte per UTF-16 unit.
  for (let i = 0; i < value.length; i++) {
    if (value.charCodeAt(i) > 0x7f) return Buffer.byteLength(value, 'utf8');
  }
  return value.length;
}

const isLowerAlnum = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39);
const isLower = (c: number) => c >= 0x61 && c <= 0x7a;

/** `[a-z0-9]([-a-z0-9]*[a-z0-9])?` over value[start, end). */
function scanLabel(value: string, start: number, end: number, firstOk: (c: number) => boolean): boolean {
  if (end <= start) return false;
  if (!firstOk(value.charCodeAt(start)) || !isLowerAlnum(value.charCodeAt(end - 1))) return false;
  for (let i = start + 1; i < end - 1; i++) {
    const c = value.charCodeAt(i);
    if (!isLowerAlnum(c) && c !== 0x2d) return false;
  }
  return true;
}

export function matchesDNS1123Label(value: string): boolean {
  return scanLabel(value, 0, value.length, isLowerAlnum);
}

export function matchesDNS1123Subdomain(value: string): boolean {
  let start = 0;
  for (;;) {
    let end = value.indexOf('.', start);
    if (end < 0) end = value.length;
    if (!scanLabel(value, start, end, isLowerAlnum)) return false;
    if (end === value.length) return true;
    start = end + 1;
  }
}

export function matchesDNS1035Label(value: string): boolean {
  return scanLabel(value, 0, value.length, isLower);
}

/** Kubernetes' `IsDNS1123Label`. */
export function isDNS1123Label(value: string, unit: LengthUnit = 'characters'): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123LabelMaxLength) errs.push(maxLenError(DNS1123LabelMaxLength, unit));
  if (!matchesDNS1123Label(value)) {
    // A valid subdomain that is not a valid label can only be wrong because of its dots.
    if (matchesDNS1123Subdomain(value)) errs.push('must not contain dots');
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

/** Kubernetes' `IsDNS1123Subdomain`. */
export function isDNS1123Subdomain(value: string, unit: LengthUnit = 'characters'): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123SubdomainMaxLength) errs.push(maxLenError(DNS1123SubdomainMaxLength, unit));
  if (!matchesDNS1123Subdomain(value)) errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

/** Kubernetes' `IsDNS1035Label`. */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1035LabelMaxLength) errs.push(maxLenError(DNS1035LabelMaxLength));
  if (!matchesDNS1035Label(value)) errs.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
  return errs;
}
