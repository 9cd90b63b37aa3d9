import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain } from './dns-validation.js';

/**
 * Validates an object name (`prefix` false) or a generateName prefix (`prefix` true, so a
 * trailing dash is allowed because random characters follow). Returns Kubernetes' messages.
 */
export type ValidateNameFunc = (name: string, prefix: boolean) => string[];

/**
 * Replaces a trailing dash so the prefix can be checked as a name. Kubernetes replaces the last
 * two characters with `a` (`name[:len(name)-2] + "a"`); we keep that so the same prefixes pass.
 * A lone `-` stays as it is (Kubernetes would panic on it) and so fails validation.
 */
export function maskTrailingDash(name: string): string {
  if (name.length > 1 && name.endsWith('-')) return `${name.slice(0, name.length - 2)}a`;
  return name;
}

/** Kubernetes' `NameIsDNSSubdomain`: the default rule for object names (at most 253 characters). */
export const nameIsDNSSubdomain: ValidateNameFunc = (name, prefix) =>
  isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

/** Kubernetes' `NameIsDNSLabel` (namespaces and other names of at most 63 characters). */
export const nameIsDNSLabel: ValidateNameFunc = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);

/** Kubernetes' `NameIsDNS1035Label` (services). */
export const nameIsDNS1035Label: ValidateNameFunc = (name, prefix) =>
  isDNS1035Label(prefix ? maskTrailingDash(name) : name);

/**
 * Kubernetes' `ValidatePathSegmentName`: what every name must satisfy to sit in a URL path,
 * checked by kube-apiserver for all kinds on create and update (`may not be '..'`,
 * `may not contain '/'`). Every GET checks its name here: plain tests, no closures or arrays but
 * the answer (the `filter`/`map` form allocated 160 bytes a GET: inprocess.mjs --profile --heap).
 */
export const validatePathSegmentName: ValidateNameFunc = (name, prefix) => {
  if (!prefix && (name === '.' || name === '..')) return [`may not be '${name}'`];
  const problems: string[] = [];
  if (name.includes('/')) problems.push("may not contain '/'");
  if (name.includes('%')) problems.push("may not contain '%'");
  return problems;
};
