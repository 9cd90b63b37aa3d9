import { LRUCache } from 'lru-cache';
import { encodeJson, type ApiObject } from '@plat/api-model';

/** Default bound of the encodings kept ({@link EncodedObjects}): 64 Mi characters (bytes, for ASCII objects). */
export const defaultEncodedCacheBytes = 64 * 1024 * 1024;

/** How an object is served: its kind and apiVersion, and the served form of a stored object without them. */
export interface EncodingView {
  kind: string;
  apiVersion: string;
  servedItem(stored: ApiObject): ApiObject;
}

/**
 * The compact JSON of objects as served, kept by (served apiVersion, kind, uid, resourceVersion):
 * an object at a resourceVersion never changes, so its bytes in one served version do not either,
 * and a GET or a LIST item after the first reuses them instead of encoding again (in the watch
 * cache the same frozen object is served to every reader). Only plain compact JSON is kept; Table,
 * YAML, protobuf and pretty output encode each time.
 *
 * What it buys (tools/bench/apiserver, 2 shared vCPUs): a LIST of 1,000 ClusterTrustBundles
 * (930 KB) no longer runs JSON.stringify over the whole list, only joins the 1,000 kept strings
 * (see docs/performance.md for the req/s and p99 before and after); a GET skips one
 * JSON.stringify of the object (about 1.5 µs of the ~200 µs CPU per GET).
 *
 * Bounded: least recently used encodings go once the kept text passes `maxBytes` characters
 * (one byte each for the ASCII text of typical objects; docs/operations.md, limits).
 */
export class EncodedObjects {
  readonly #items: LRUCache<string, string>;

  constructor(maxBytes = defaultEncodedCacheBytes) {
    this.#items = new LRUCache<string, string>({ maxSize: maxBytes, sizeCalculation: (text, key) => text.length + key.length });
  }

  /** The object as a list item (no kind, apiVersion): `encodeJson(view.servedItem(stored))`. */
  item(view: EncodingView, stored: ApiObject): string {
    const key = cacheKey(view, stored);
    if (key !== undefined) {
      const known = this.#items.get(key);
      if (known !== undefined) return known;
    }
    const text = encodeJson(view.servedItem(stored));
    if (key !== undefined) this.#items.set(key, text);
    return text;
  }

  /** The object as a GET answers it: `encodeJson({ kind, apiVersion, ...item }) + '\n'`, from the kept item. */
  object(view: EncodingView, stored: ApiObject): string {
    return withTypeMetaText(view, this.item(view, stored));
  }

  /**
   * A list as writeObject encodes it (`encodeJson({ kind, apiVersion, metadata, items }) + '\n'`),
   * from the items' kept encodings joined inside the envelope.
   */
  list(view: EncodingView, listKind: string, metadata: Record<string, unknown>, items: readonly ApiObject[]): string {
    const parts = new Array<string>(items.length);
    for (let i = 0; i < items.length; i++) parts[i] = this.item(view, items[i]!);
    return `{"kind":${JSON.stringify(listKind)},"apiVersion":${JSON.stringify(view.apiVersion)},"metadata":${encodeJson(metadata)},"items":[${parts.join(',')}]}\n`;
  }

  /** Kept encodings (for tests of the bound). */
  get size(): number {
    return this.#items.size;
  }
}

/**
 * The key of a stored object's encoding, or none for an object without uid or resourceVersion
 * (not yet stored: its content is not fixed by them).
 */
function cacheKey(view: EncodingView, stored: ApiObject): string | undefined {
  const meta = stored.metadata;
  const uid = meta?.uid;
  const rv = meta?.resourceVersion;
  if (!uid || !rv) return undefined;
  return `${view.apiVersion}\u0000${view.kind}\u0000${uid}\u0000${rv}`;
}

/** `{"kind":..,"apiVersion":..,<item's fields>}\n`: the same text as encoding the object with its type first. */
function withTypeMetaText(view: EncodingView, item: string): string {
  const head = `{"kind":${JSON.stringify(view.kind)},"apiVersion":${JSON.stringify(view.apiVersion)}`;
  return item === '{}' ? `${head}}\n` : `${head},${item.slice(1)}\n`;
}
