/**
 * IsDomainPrefixedPath of `k8s.io/apimachinery/pkg/util/validation`, worded as Kubernetes words
 * it; the DNS-1123 checks themselves are @plat/api-model's.
 */
import { fieldError, isDNS1123Label, isDNS1123Subdomain, type FieldError } from '@plat/api-model';

export { isDNS1123Label };

const httpPathFmt = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const httpPathRe = /^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/;

function regexError(msg: string, fmt: string): string {
  return `${msg} (regex used for validation is '${fmt}')`;
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
