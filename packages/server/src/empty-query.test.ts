import { ServerRequestContext, splitRequestTarget, type IncomingRequest, type OutgoingResponse } from './context.js';
import { emptyQuery } from './empty-query.js';

describe('emptyQuery', () => {
  it('reads as an empty URLSearchParams does', () => {
    const empty = new URLSearchParams('');
    for (const name of ['watch', 'timeout', 'pretty', '']) {
      expect(emptyQuery.get(name)).toBe(empty.get(name));
      expect(emptyQuery.getAll(name)).toEqual(empty.getAll(name));
      expect(emptyQuery.has(name)).toBe(empty.has(name));
    }
    expect(emptyQuery.toString()).toBe('');
    expect([...emptyQuery]).toEqual([]);
    expect(emptyQuery.size).toBe(0);
    expect(emptyQuery).toBeInstanceOf(URLSearchParams);
  });

  it('cannot change: every request without a query shares it', () => {
    expect(() => emptyQuery.append('a', '1')).toThrow(TypeError);
    expect(() => emptyQuery.set('a', '1')).toThrow(TypeError);
    expect(() => emptyQuery.delete('a')).toThrow(TypeError);
    emptyQuery.sort();
    expect(emptyQuery.get('a')).toBeNull();
    expect(emptyQuery.toString()).toBe('');
  });
});

describe('ServerRequestContext.query', () => {
  const context = (target: string): ServerRequestContext =>
    new ServerRequestContext({ headers: {} } as IncomingRequest, {} as OutgoingResponse, 'GET', splitRequestTarget(target), 'id', 0n);

  it.each(['/apis/g/v1/r/a', '/apis/g/v1/r/a?'])('is the shared empty query for %s', (target) => {
    expect(context(target).query).toBe(emptyQuery);
  });

  it.each([
    ['/apis/g/v1/r?watch=true&timeout=5s', 'watch', 'true'],
    ['/apis/g/v1/r?pretty', 'pretty', ''],
    ['/apis/../g/v1/r?resourceVersion=7', 'resourceVersion', '7'],
  ])('parses the query of %s', (target, name, value) => {
    const query = context(target).query;
    expect(query).not.toBe(emptyQuery);
    expect(query.get(name)).toBe(value);
  });
});
