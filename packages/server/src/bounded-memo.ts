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
  // The key answered last and its answer: a client sends the same target again and again, and a
  // string comparison with the last key costs no hashing of the request's fresh string, which
  // the Map lookup did on every request (`FindOrderedHashMapEntry` and `ComputeAndSetRawHash`
  // under `onRequest`, 0.14 + 0.09 µs a GET in perf-native.mjs --callers; docs/performance.md
  // "apiserver", sixth round). A different key fails the comparison at its length or first
  // differing character, then takes the Map.
  #lastKey: string | undefined = undefined;
  #lastAnswer: V | undefined = undefined;

  constructor(
    private readonly maxEntries: number,
    readonly maxKeyLength: number,
  ) {}

  get(key: string): V | undefined {
    if (key === this.#lastKey) return this.#lastAnswer;
    const answer = this.#answers.get(key);
    if (answer !== undefined) {
      this.#lastKey = key;
      this.#lastAnswer = answer;
    }
    return answer;
  }

  set(key: string, value: V): void {
    if (this.#answers.size >= this.maxEntries) this.#answers.clear();
    this.#answers.set(key, value);
    this.#lastKey = key;
    this.#lastAnswer = value;
  }
}
