/**
 * Conversions between JSON-shaped JavaScript values and CEL values.
 *
 * Kubernetes decodes token claims into unstructured JSON, where whole numbers are int64 and the
 * rest float64; CEL then sees `claims.exp` as an `int`. JavaScript's JSON.parse gives one number
 * type, so whole numbers within the safe range become `bigint` here. JSON objects become
 * {@link EscapedKeyMap}s, so `claims.kubernetes__dot__io` names the claim `kubernetes.io` at any
 * depth, as in Kubernetes.
 */
import { EscapedKeyMap } from './escaped-key-map.js';

/** Deepest nesting converted; a token's JSON is bounded far below this by its size limit. */
const maxDepth = 64;

function convert(value: unknown, depth: number): unknown {
  if (depth > maxDepth) return value;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map((item) => convert(item, depth + 1));
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const entries = Object.entries(value).map(([key, item]) => [key, convert(item, depth + 1)] as const);
    return new EscapedKeyMap(entries, depth === 0);
  }
  return value;
}

/** Conversions already made, so the programs of one authenticator convert a token's claims once. */
const converted = new WeakMap<object, unknown>();

/**
 * The claims of a token as CEL sees them (whole numbers as `int`, objects as maps whose keys CEL
 * can name escaped). The result for an object is remembered while that object lives, so do not
 * mutate claims between evaluations; a value already converted is returned as it is.
 */
export function toCelClaims(claims: unknown): unknown {
  if (claims === null || typeof claims !== 'object') return convert(claims, 0);
  if (claims instanceof EscapedKeyMap) return claims;
  let out = converted.get(claims);
  if (out === undefined) {
    out = convert(claims, 0);
    converted.set(claims, out);
  }
  return out;
}

/** CEL's name for the type of an evaluated value, for error messages (`string`, `int`, `list`...). */
export function celTypeOf(value: unknown): string {
  if (value === null || value === undefined) return 'null_type';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'bigint':
      return 'int';
    case 'number':
      return 'double';
    default:
      break;
  }
  if (Array.isArray(value)) return 'list';
  if (value instanceof Uint8Array) return 'bytes';
  if (value instanceof Date) return 'google.protobuf.Timestamp';
  const name = (value as object).constructor?.name;
  if (name === 'Optional') return 'optional_type';
  if (name === 'UnsignedInt') return 'uint';
  if (name === 'Duration') return 'google.protobuf.Duration';
  if (name === 'Type') return 'type';
  return 'map';
}

export interface SubjectAccessReviewSpecInput {
  user?: string;
  uid?: string;
  groups?: readonly string[];
  extra?: Readonly<Record<string, readonly string[]>>;
  resourceAttributes?: {
    namespace?: string;
    verb?: string;
    group?: string;
    version?: string;
    resource?: string;
    subresource?: string;
    name?: string;
    fieldSelector?: { rawSelector?: string; requirements?: readonly SelectorRequirementInput[] };
    labelSelector?: { rawSelector?: string; requirements?: readonly SelectorRequirementInput[] };
  };
  nonResourceAttributes?: { path?: string; verb?: string };
}

interface SelectorRequirementInput {
  key?: string;
  operator?: string;
  values?: readonly string[] | null;
}

function selectorValue(selector: { rawSelector?: string; requirements?: readonly SelectorRequirementInput[] } | undefined) {
  if (!selector) return undefined;
  // Kubernetes passes rawSelector when set, otherwise the parsed requirements.
  if (selector.rawSelector) return { rawSelector: selector.rawSelector };
  if (selector.requirements?.length) {
    return {
      requirements: selector.requirements.map((r) => ({ key: r.key ?? '', operator: r.operator ?? '', values: [...(r.values ?? [])] })),
    };
  }
  return undefined;
}

/**
 * The `request` variable for webhook match conditions, built from a v1 SubjectAccessReviewSpec the
 * way Kubernetes builds it: user, groups, uid and extra always present (empty when unset),
 * resourceAttributes and nonResourceAttributes only when the review has them.
 */
export function requestActivation(spec: SubjectAccessReviewSpecInput): { request: Record<string, unknown> } {
  const request: Record<string, unknown> = {
    user: spec.user ?? '',
    groups: [...(spec.groups ?? [])],
    uid: spec.uid ?? '',
    extra: Object.fromEntries(Object.entries(spec.extra ?? {}).map(([k, v]) => [k, [...v]])),
  };
  const ra = spec.resourceAttributes;
  if (ra) {
    const attributes: Record<string, unknown> = {
      namespace: ra.namespace ?? '',
      verb: ra.verb ?? '',
      group: ra.group ?? '',
      version: ra.version ?? '',
      resource: ra.resource ?? '',
      subresource: ra.subresource ?? '',
      name: ra.name ?? '',
    };
    const fieldSelector = selectorValue(ra.fieldSelector);
    if (fieldSelector) attributes.fieldSelector = fieldSelector;
    const labelSelector = selectorValue(ra.labelSelector);
    if (labelSelector) attributes.labelSelector = labelSelector;
    request.resourceAttributes = attributes;
  }
  if (spec.nonResourceAttributes) {
    request.nonResourceAttributes = { path: spec.nonResourceAttributes.path ?? '', verb: spec.nonResourceAttributes.verb ?? '' };
  }
  return { request };
}

/** The `user` variable for user validation rules. */
export function userActivation(user: {
  username?: string;
  uid?: string;
  groups?: readonly string[];
  extra?: Readonly<Record<string, readonly string[]>>;
}): { user: Record<string, unknown> } {
  return {
    user: {
      username: user.username ?? '',
      uid: user.uid ?? '',
      groups: [...(user.groups ?? [])],
      // Kubernetes wraps user.extra so that `user.extra.example__dot__com__slash__team` works.
      extra: new EscapedKeyMap(Object.entries(user.extra ?? {}).map(([k, v]) => [k, [...v]] as const)),
    },
  };
}
