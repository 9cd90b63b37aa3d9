import { LRUCache } from 'lru-cache';
import { encodeJson, type ApiObject } from '@plat/api-model';
import { ListBuffers } from './list-buffers.js';
import { ownUtf8 } from './own-bytes.js';

/** Default bound of the encodings kept ({@link EncodedObjects}): 64 MiB. */
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
 * and a GET or a LIST item after the first reuses them instead of encoding again. A frozen object
 * (the storage read cache's for a GET, the watch cache's own for a read-only LIST) finds them by
 * identity; a copy (a list from the backend) by revision. Only plain compact JSON is kept;
 * Table, YAML, protobuf and pretty output encode each time.
 *
 * What it buys (tools/bench/apiserver, 2 shared vCPUs, docs/performance.md): a LIST of 1,000
 * ClusterTrustBundles (1.02 MB) serves 123–172 per CPU-second instead of 44–57 (bench.mjs, three
 * pairs of runs); kept as bytes rather than joined as strings it costs 5.2 ms of CPU instead of
 * 28 ms (profile.mjs --list 1000). A GET costs what it did (ab.mjs: 0.987x): its body was kept
 * by frozen object before.
 *
 * Bounded: least recently used encodings go once the kept JSON passes `maxBytes` (an object
 * counts twice its UTF-8 bytes, for its list item and GET forms, plus its key; docs/operations.md,
 * limits). A frozen stored object also holds its encodings while it lives: while it is in the
 * storage read cache (bounded there), or current in (or in the event window of) the watch cache.
 */
export class EncodedObjects {
  readonly #entries: LRUCache<string, Encoding>;
  /** Encodings of frozen stored objects by object, per view: held only while the object lives. */
  readonly #frozen = new WeakMap<EncodingView, WeakMap<object, Encoding>>();
  #lastView: EncodingView | undefined;
  #lastByObject: WeakMap<object, Encoding> | undefined;
  /** Memory for list bodies, used again once their responses finished. */
  readonly #bodies: ListBuffers;

  constructor(maxBytes = defaultEncodedCacheBytes, bodies = new ListBuffers()) {
    this.#bodies = bodies;
    // Sized at twice the item: room for the GET form, made at the first GET.
    this.#entries = new LRUCache<string, Encoding>({ maxSize: maxBytes, sizeCalculation: (entry, key) => 2 * entry.item.length + key.length });
  }

  /** The object as a list item (no kind, apiVersion), as UTF-8: `encodeJson(view.servedItem(stored))`. */
  item(view: EncodingView, stored: ApiObject): Buffer {
    return this.#entry(view, stored).item;
  }

  /** The object as a GET answers it, as UTF-8: `encodeJson({ kind, apiVersion, ...item }) + '\n'`, made from the kept item once. */
  object(view: EncodingView, stored: ApiObject): Buffer {
    const entry = this.#entry(view, stored);
    // Bytes, not a string: a string body went out joined to the head, so Node flattened and
    // UTF-8-encoded head and body again at every write (`v8::String::WriteUtf8` and
    // `WriteToFlat` 0.38 + 0.25 µs per GET against the bare server's 0.08 + 0.14, perf-now2),
    // and writeBody measured its length with `Buffer.byteLength`. Kept as bytes, the body is
    // written as the bare server writes it: a Latin-1 head and the buffer, in one writev. That
    // `WriteUtf8` stack went from 0.17-0.19 µs per GET to none (perf-native.mjs), and the garbage
    // of the flat copy (1,999 B under `Socket._writeGeneric`) to 169 B; with the two other cuts of
    // its round, CPU per GET B ÷ A 0.918-1.024 in five in-process runs, median 0.970: noise level
    // (docs/performance.md "apiserver", fifth round).
    return (entry.object ??= ownUtf8(withTypeMetaText(view, entry.item.toString('utf8'))));
  }

  #entry(view: EncodingView, stored: ApiObject): Encoding {
    // A frozen object (the storage read cache's, shared by every GET) finds its encoding by
    // identity: no key to build and hash, no LRU bookkeeping. What it buys: ab.mjs put the GET
    // with only the keyed LRU at 1.11x the CPU of the build before; with this, 0.987x.
    // Looked up before asking whether the object is frozen: only frozen objects are ever in the
    // map, and a GET's is found there without `Object.isFrozen`, a call into V8's runtime
    // (TestPropertiesIntegrityLevel). With the view memo below, `WeakMapLookupHashIndex` went from
    // 0.40 µs per GET to under 0.2 (perf-native.mjs; docs/performance.md "apiserver", fourth round).
    const held = this.#frozenOf(view).get(stored);
    if (held !== undefined) return held;
    const byObject = Object.isFrozen(stored) ? this.#frozenOf(view) : undefined;
    const key = cacheKey(view, stored);
    let entry = key === undefined ? undefined : this.#entries.get(key);
    if (entry === undefined) {
      entry = { item: ownUtf8(encodeJson(view.servedItem(stored))) };
      if (key !== undefined) this.#entries.set(key, entry);
    }
    byObject?.set(stored, entry);
    return entry;
  }

  #frozenOf(view: EncodingView): WeakMap<object, Encoding> {
    // The view asked last answers without a WeakMap lookup: GETs of one resource ask by the same view.
    if (view === this.#lastView) return this.#lastByObject!;
    let byObject = this.#frozen.get(view);
    if (byObject === undefined) this.#frozen.set(view, (byObject = new WeakMap()));
    this.#lastView = view;
    this.#lastByObject = byObject;
    return byObject;
  }

  /**
   * A list as writeObject encodes it (`encodeJson({ kind, apiVersion, metadata, items }) + '\n'`,
   * as UTF-8), from the items' kept bytes copied once into the envelope: no JSON.stringify of the
   * list, no join of a megabyte string, no UTF-8 encoding of it at the write.
   *
   * One buffer of the exact length, filled in place: the commas are written as bytes and each
   * item is one `set`, where Buffer.concat took a list of twice as many parts (a buffer per
   * comma) and walked it twice; frozen items (the watch cache's) are looked up in the view's map
   * found once per list. The body's memory comes from {@link ListBuffers}: give it back with
   * {@link release} once its response finished. A write per item instead of the copy would not
   * save it: node's TLS layer joins the chunks of one write into one buffer before `SSL_write`.
   * What it buys: see docs/performance.md, "apiserver".
   */
  list(view: EncodingView, listKind: string, metadata: Record<string, unknown>, items: readonly ApiObject[]): Buffer {
    const head = `{"kind":${JSON.stringify(listKind)},"apiVersion":${JSON.stringify(view.apiVersion)},"metadata":${encodeJson(metadata)},"items":[`;
    const byObject = this.#frozenOf(view);
    const n = items.length;
    const parts = new Array<Buffer>(n);
    const headLength = Buffer.byteLength(head, 'utf8');
    let length = headLength + (n > 0 ? n - 1 : 0) + listTail.length;
    for (let i = 0; i < n; i++) {
      const stored = items[i]!;
      const item = byObject.get(stored)?.item ?? this.#entry(view, stored).item;
      parts[i] = item;
      length += item.length;
    }
    const out = this.#bodies.take(length);
    let at = out.write(head, 0, headLength, 'utf8');
    for (let i = 0; i < n; i++) {
      if (i > 0) out[at++] = comma;
      const item = parts[i]!;
      out.set(item, at);
      at += item.length;
    }
    out.set(listTail, at);
    return out;
  }

  /** Gives back the memory of a body from {@link list} once its response has finished (written out). */
  release(body: Buffer): void {
    this.#bodies.give(body);
  }

  /** Kept encodings (for tests of the bound). */
  get size(): number {
    return this.#entries.size;
  }
}

/** One object's kept bytes: as a list item, and as a GET body once a GET asked (both UTF-8). */
interface Encoding {
  readonly item: Buffer;
  object?: Buffer;
}

/** `,` in UTF-8. */
const comma = 0x2c;
const listTail = Buffer.from(']}\n');

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
