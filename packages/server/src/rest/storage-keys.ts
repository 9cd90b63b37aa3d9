/** Bound of a resource's remembered storage keys ({@link StorageKeys}; docs/operations.md, limits). */
export const storageKeysPerResource = 1024;

/**
 * The storage keys of one resource's objects by namespace and name, for names already checked
 * ({@link scopeKey}): a GET of a name asked before takes its key from here instead of checking
 * the name and joining the key again. The key is then the same string object on every request,
 * so the storage layers' lookups by it (the MVCC read cache, the backend's maps) find its hash
 * already computed, where a newly joined key was flattened and hashed by the first of them.
 * With the request info's memo (request-info.ts) the name is itself a string hashed before, so
 * this lookup hashes nothing new either. What it buys, with `validateKey`'s memo: `scopeKey`'s
 * 162 B of garbage per GET gone, `StringIndexOf` 0.36 µs per GET to under 0.2 (perf-native.mjs),
 * CPU per GET B ÷ A 0.951 in-process (docs/performance.md "apiserver", fourth round).
 *
 * Bounded: at most {@link storageKeysPerResource} keys; when full it starts empty again.
 */
export class StorageKeys {
  /** Keys of cluster-scoped objects (namespace ''), by name. */
  readonly #cluster = new Map<string, string>();
  readonly #namespaced = new Map<string, Map<string, string>>();
  #count = 0;

  get(namespace: string, name: string): string | undefined {
    return namespace === '' ? this.#cluster.get(name) : this.#namespaced.get(namespace)?.get(name);
  }

  set(namespace: string, name: string, key: string): void {
    if (this.#count >= storageKeysPerResource) {
      this.#cluster.clear();
      this.#namespaced.clear();
      this.#count = 0;
    }
    let names = this.#cluster;
    if (namespace !== '') {
      names = this.#namespaced.get(namespace) ?? new Map<string, string>();
      if (names.size === 0) this.#namespaced.set(namespace, names);
    }
    if (!names.has(name)) this.#count++;
    names.set(name, key);
  }

  /** Keys remembered (for tests of the bound). */
  get size(): number {
    return this.#count;
  }
}
