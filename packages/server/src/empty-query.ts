/**
 * The query of a request without one, shared by every such request: a URLSearchParams that is
 * empty and stays so (its changes throw), and whose reads answer without looking.
 *
 * What it buys: most GETs carry no query, yet the request info (`watch`), the timeout filter
 * (`timeout`) and the GET handler (`includeObject`, `resourceVersion`, `pretty`) each asked for a
 * parameter, so every such request built a URLSearchParams and its list for five misses:
 * 50-160 ns per request in a microbenchmark (load 6), against 0.3-3.5 ns for the shared one;
 * docs/performance.md "apiserver", fifth round.
 */
class EmptyQuery extends URLSearchParams {
  override get(_name: string): string | null {
    return null;
  }

  override getAll(_name: string): string[] {
    return [];
  }

  override has(_name: string, _value?: string): boolean {
    return false;
  }

  override append(): void {
    throw new TypeError('the query of a request without one cannot change');
  }

  override set(): void {
    throw new TypeError('the query of a request without one cannot change');
  }

  override delete(): void {
    throw new TypeError('the query of a request without one cannot change');
  }

  override sort(): void {}
}

export const emptyQuery: URLSearchParams = Object.freeze(new EmptyQuery());
