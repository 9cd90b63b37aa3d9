/**
 * The name checks the configuration files need, worded as Kubernetes'
 * `k8s.io/apimachinery/pkg/util/validation` words them (IsDNS1123Label, IsDNS1123Subdomain,
 * IsDomainPrefixedPath). Patterns are anchored and linear, so long inputs cost one pass.
 */
import { fieldError, type FieldError } from '@plat/api-model';

const labelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const subdomainFmt = `${labelFmt}(\\.${labelFmt})*`;
const labelRe = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/;
const httpPathFmt = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const httpPathRe = /^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/;

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join('or ')}regex used for validation is '${fmt}')`;
}

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push('must be no more than 63 characters');
  if (!labelRe.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        labelFmt,
        'my-name',
        '123-abc',
      ),
    );
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push('must be no more than 253 characters');
  if (value === '' || !value.split('.').every((label) => labelRe.test(label))) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        subdomainFmt,
        'example.com',
      ),
    );
  }
  return errs;
}

/** A key such as `example.com/team`: an RFC 1123 subdomain, a slash, an HTTP path. */
export function isDomainPrefixedPath(path: string, value: string): FieldError[] {
  if (value === '') return [fieldError.required(path)];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const rest = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || host === '' || rest === '') {
    return [fieldError.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  }
  const errs = isDNS1123Subdomain(host).map((e) => fieldError.invalid(path, host, e));
  if (!httpPathRe.test(rest)) errs.push(fieldError.invalid(path, rest, regexError('Invalid path', httpPathFmt)));
  return errs;
}
