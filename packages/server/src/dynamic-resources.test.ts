import { DynamicResources, maxDynamicResources } from './dynamic-resources.js';
import type { ResourceDefinition } from './resource.js';

const def = (resource: string) => ({ group: 'example.com', version: 'v1', resource }) as ResourceDefinition;

describe('DynamicResources', () => {
  it('counts each change and tells its listeners', () => {
    const dynamic = new DynamicResources();
    const seen: number[] = [];
    const stop = dynamic.onChange(() => seen.push(dynamic.version));
    dynamic.set('a', [def('as')]);
    dynamic.set('b', [def('bs')]);
    dynamic.set('a', [def('as2')]);
    expect(dynamic.all().map((d) => d.resource)).toEqual(['as2', 'bs']);
    dynamic.delete('a');
    dynamic.delete('missing');
    expect(seen).toEqual([1, 2, 3, 4]);
    stop();
    dynamic.delete('b');
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(dynamic.all()).toEqual([]);
  });

  it('holds at most maxDynamicResources owners', () => {
    const dynamic = new DynamicResources();
    for (let i = 0; i < maxDynamicResources; i++) dynamic.set(`o${i}`, []);
    expect(() => dynamic.set('one-more', [])).toThrow(`more than ${maxDynamicResources} dynamic resource sets`);
    dynamic.set('o0', [def('x')]);
    expect(dynamic.has('o0')).toBe(true);
  });
});
