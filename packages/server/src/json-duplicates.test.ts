import { findDuplicateJsonKeys } from './json-duplicates.js';

describe('findDuplicateJsonKeys', () => {
  it('reports the path of every repeated key, nested and in arrays', () => {
    const text = '{"a":1,"a":2,"m":{"x":{"y":1,"y":[1,{"z":1,"z":2}]}},"l":[{"k":1},{"k":1,"k":2}],"s":"\\"a\\":1"}';
    expect(findDuplicateJsonKeys(text)).toEqual(['a', 'm.x.y', 'm.x.y[1].z', 'l[1].k']);
  });

  it('finds nothing in documents without repeats, including empty containers and escapes', () => {
    expect(findDuplicateJsonKeys(' { "a" : [ ] , "b" : { } , "c\\u0041" : "x,}" , "cA2": null } ')).toEqual([]);
    expect(findDuplicateJsonKeys('[1, 2, {"a": true}]')).toEqual([]);
  });

  it('treats escaped and plain spellings of one key as the same key', () => {
    expect(findDuplicateJsonKeys('{"ab":1,"a\\u0062":2}')).toEqual(['ab']);
  });
});
