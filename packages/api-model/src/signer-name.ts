import { fieldError, type FieldError } from './field-error.js';
import { FieldPath } from './field-path.js';
import { goQuote } from './go-quote.js';
import { byteLength, DNS1123LabelMaxLength, DNS1123SubdomainMaxLength, isDNS1123Label, isDNS1123Subdomain } from './dns-validation.js';
import { nameIsDNSSubdomain, type ValidateNameFunc } from './name-validation.js';

/**
 * Signer names (`<domain>/<path>`) and the ClusterTrustBundle naming rule that ties an object's
 * name to its signer, as Kubernetes' `pkg/apis/core/validation` defines them.
 */

/** Domain (253) + `/` + path (a DNS subdomain, `.`, a DNS label: 253 + 1 + 63). */
export const maxSignerNameLength = DNS1123SubdomainMaxLength + 1 + (DNS1123SubdomainMaxLength + DNS1123LabelMaxLength + 1);

type PathLike = FieldPath | string;

/**
 * Kubernetes' `ValidateSignerName`: `example.com/signer-name`, the domain made of DNS labels with
 * at least one dot, the path made of DNS subdomains, at most 571 characters in all.
 */
export function validateSignerName(signerName: string, path: PathLike = FieldPath.root('spec', 'signerName')): FieldError[] {
  const errs: FieldError[] = [];
  if (signerName.length === 0) return [fieldError.required(path)];
  const segments = signerName.split('/');
  // Without exactly one '/', the parts below cannot be told apart: stop here.
  if (segments.length !== 2) {
    return [fieldError.invalid(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  }
  const [domain, signerPath] = segments as [string, string];
  if (byteLength(domain) > DNS1123SubdomainMaxLength) errs.push(fieldError.tooLong(path, '', DNS1123SubdomainMaxLength));
  const domainLabels = domain.split('.');
  for (const label of domainLabels) {
    const msgs = isDNS1123Label(label);
    if (msgs.length) {
      for (const msg of msgs) errs.push(fieldError.invalid(path, domain, `validating label ${goQuote(label)}: ${msg}`));
      // Later labels would only repeat indistinguishable messages.
      break;
    }
  }
  if (domainLabels.length < 2) {
    errs.push(fieldError.invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  }
  for (const label of signerPath.split('.')) {
    const msgs = isDNS1123Subdomain(label);
    if (msgs.length) {
      for (const msg of msgs) errs.push(fieldError.invalid(path, signerPath, `validating label ${goQuote(label)}: ${msg}`));
      break;
    }
  }
  if (byteLength(signerName) > maxSignerNameLength) errs.push(fieldError.tooLong(path, '', maxSignerNameLength));
  return errs;
}

/** The name prefix a bundle of this signer must carry: every `/` replaced by `:`, then `:`. */
export function clusterTrustBundleNamePrefix(signerName: string): string {
  return `${signerName.replaceAll('/', ':')}:`;
}

/**
 * Kubernetes' `ValidateClusterTrustBundleName(signerName)`: with a signer, the name is
 * `<signer with / as :>:<suffix>` and the suffix a DNS subdomain; without one, the name has no
 * `:` at all (so it cannot look like a signer's bundle) and is a DNS subdomain.
 */
export function validateClusterTrustBundleName(signerName: string): ValidateNameFunc {
  return (name, prefix) => {
    if (signerName === '') {
      if (name.includes(':')) return ['ClusterTrustBundle without signer name must not have ":" in its name'];
      return nameIsDNSSubdomain(name, prefix);
    }
    const required = clusterTrustBundleNamePrefix(signerName);
    if (!name.startsWith(required)) {
      return [`ClusterTrustBundle for signerName ${signerName} must be named with prefix ${required}`];
    }
    return nameIsDNSSubdomain(name.slice(required.length), prefix);
  };
}

/**
 * The signer a bundle name refers to, as the kubelet reads it (everything before the last `:`,
 * with `:` turned back into `/`), or undefined for a name without `:`.
 */
export function signerNameFromClusterTrustBundleName(name: string): string | undefined {
  const split = name.lastIndexOf(':');
  return split < 0 ? undefined : name.slice(0, split).replaceAll(':', '/');
}
