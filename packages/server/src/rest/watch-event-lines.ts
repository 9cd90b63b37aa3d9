import { LRUCache } from 'lru-cache';
import type { ApiObject } from '@plat/api-model';
import { ownConcat } from './own-bytes.js';
import { encodedObject, type ResourceScope } from './scope.js';

const eventHeads = { ADDED: Buffer.from('{"type":"ADDED","object":'), MODIFIED: Buffer.from('{"type":"MODIFIED","object":') } as const;
const eventTail = Buffer.from('}\n');

/** Default bound of the watch event lines kept ({@link WatchEventLines}): 16 MiB. */
export const defaultWatchEventLinesBytes = 16 * 1024 * 1024;

/**
 * The JSON lines of ADDED and MODIFIED watch events (`{"type":..,"object":..}\n`, UTF-8), kept by
 * (type, served apiVersion, kind, uid, resourceVersion): every watcher of a resource that sees
 * one change writes the same bytes, so they are encoded once per change instead of once per
 * watcher, and all watchers write one shared Buffer. The object's text comes from the scope's
 * EncodedObjects (a GET of the same revision reuses it). DELETED events are not kept: the object
 * a filtered watch sees leave its selection carries the new resourceVersion over its previous
 * state, so (uid, resourceVersion) does not fix its content.
 *
 * What it buys (tools/bench/trust/watch-10k.mjs, 10,000 watches of one signer's bundles, 2
 * shared vCPUs, interleaved runs; docs/performance.md, "watch fan-out"): the server's CPU per
 * change 395–418 ms instead of 422–490 ms, and its RSS after six changes 385–413 MiB instead of
 * 456–499 MiB (10,000 encodings and their strings per change are gone). Latencies on that loaded
 * machine were within noise either way.
 *
 * Bounded: least recently used lines go once their bytes pass `maxBytes` (docs/operations.md).
 */
export class WatchEventLines {
  readonly #lines: LRUCache<string, Buffer>;

  constructor(maxBytes = defaultWatchEventLinesBytes) {
    this.#lines = new LRUCache<string, Buffer>({ maxSize: maxBytes, sizeCalculation: (line, key) => line.length + key.length });
  }

  /** The event's line: the same bytes as `encodeJson({ type, object: withTypeMeta(scope, stored) }) + '\n'`. */
  line(scope: ResourceScope, type: 'ADDED' | 'MODIFIED', stored: ApiObject): Buffer {
    const meta = stored.metadata;
    const key = meta?.uid && meta.resourceVersion ? `${type}\u0000${scope.apiVersion}\u0000${scope.def.kind}\u0000${meta.uid}\u0000${meta.resourceVersion}` : undefined;
    let line = key === undefined ? undefined : this.#lines.get(key);
    if (line === undefined) {
      // encodedObject ends with a newline: the event closes after the object instead.
      const object = encodedObject(scope, stored);
      line = ownConcat([eventHeads[type], object.subarray(0, object.length - 1), eventTail]);
      if (key !== undefined) this.#lines.set(key, line);
    }
    return line;
  }

  /** Kept lines (for tests of the bound). */
  get size(): number {
    return this.#lines.size;
  }
}
