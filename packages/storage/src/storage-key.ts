import type { GroupResource } from '@plat/api-model';

/**
 * The key of an object: `/<group>/<resource>/<name>`, and `/<group>/<resource>/<namespace>/<name>`
 * for a namespaced kind (Kubernetes' layout below its `/registry` prefix). The core group is the
 * empty segment: a Namespace `a` is `//namespaces/a`.
 */
export function objectKey(group: string, resource: string, namespace: string, name: string): string {
  return namespace ? `/${group}/${resource}/${namespace}/${name}` : `/${group}/${resource}/${name}`;
}

/**
 * The prefix of a resource's keys (`/<group>/<resource>/`), or of the ones in a namespace
 * (`/<group>/<resource>/<namespace>/`): what a list or watch of them reads.
 */
export function collectionPrefix(group: string, resource: string, namespace = ''): string {
  return namespace ? `/${group}/${resource}/${namespace}/` : `/${group}/${resource}/`;
}

/** What an error message needs to know about a key `/<group>/<resource>/[<namespace>/]<name>`. */
export interface KeyInfo {
  groupResource: GroupResource;
  name: string;
}

/**
 * Splits a storage key into its GroupResource and name (the last segment), so that errors read
 * as Kubernetes writes them: `clustertrustbundles.certificates.plat.io "x" not found`.
 */
export function keyInfo(key: string): KeyInfo {
  const parts = key.split('/');
  // parts[0] is the empty string before the leading slash.
  const group = parts[1] ?? '';
  const resource = parts[2] ?? '';
  const name = parts.length > 3 ? parts[parts.length - 1] : '';
  return { groupResource: { group, resource }, name };
}

/** A list or watch prefix always names a folder: `/g/r` and `/g/r/` mean the same keys. */
export function normalizePrefix(prefix: string): string {
  return prefix.endsWith('/') ? prefix : `${prefix}/`;
}

/**
 * The first key after every key that starts with `prefix` (etcd's range end): increments the
 * last character. Prefixes always end in `/`, so no carry is ever needed.
 */
export function prefixEnd(prefix: string): string {
  const last = prefix.charCodeAt(prefix.length - 1);
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
}

/** The key {@link validateKey} accepted last. */
let lastValidKey: string | undefined;

/**
 * Rejects keys a backend cannot store faithfully. A GET's key passes each storage layer (watch
 * cache, MVCC store) and is usually the one the server's key memo gives every GET of that name
 * (packages/server rest/storage-keys.ts): the key accepted last is accepted again with one
 * comparison (of two pointers, for the same string object) instead of a scan of the key for NUL
 * (with the server's key memo: CPU per GET B ÷ A 0.951 in-process; docs/performance.md
 * "apiserver", fourth round).
 */
export function validateKey(key: string): void {
  if (key === lastValidKey) return;
  if (!key.startsWith('/') || key.endsWith('/') || key.includes('\u0000')) {
    throw new TypeError(`invalid storage key ${JSON.stringify(key)}: want /<group>/<resource>/<name>`);
  }
  lastValidKey = key;
}
