/**
 * Answers of a pure function of a string, remembered for the requests that ask again (the split
 * request targets of context.ts, the GET request infos of request-info.ts). Bounded: at most
 * `maxEntries`, and when full it starts empty again, so a client walking many keys costs one
 * failed lookup and one insert a call while memory stays bounded. A hit does no recency
 * bookkeeping (an LRU's move to the tail): the keys that matter come back at once. Keys longer
 * than `maxKeyLength` are left to the caller to answer without the memo, since hashing one costs
 * its length.
 */
export class BoundedMemo<V> {
  readonly #answers = new Map<string, V>();

  constructor(
    private readonly maxEntries: number,
    readonly maxKeyLength: number,
  ) {}

  get(key: string): V | undefined {
    return this.#answers.get(key);
  }

  set(key: string, value: V): void {
    if (this.#answers.size >= this.maxEntries) this.#answers.clear();
    this.#answers.set(key, value);
  }
}
