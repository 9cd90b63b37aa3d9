import { StorageKeys, storageKeysPerResource } from './storage-keys.js';

describe('StorageKeys', () => {
  it('keeps keys apart by namespace, cluster-scoped names under the empty one', () => {
    const keys = new StorageKeys();
    keys.set('', 'a', '/g/things/a');
    keys.set('ns1', 'a', '/g/things/ns1/a');
    keys.set('ns2', 'a', '/g/things/ns2/a');
    expect(keys.get('', 'a')).toBe('/g/things/a');
    expect(keys.get('ns1', 'a')).toBe('/g/things/ns1/a');
    expect(keys.get('ns2', 'a')).toBe('/g/things/ns2/a');
    expect(keys.get('ns3', 'a')).toBeUndefined();
    expect(keys.get('ns1', 'b')).toBeUndefined();
    keys.set('ns1', 'a', '/g/things/ns1/a');
    expect(keys.size).toBe(3);
  });

  it('holds at most its bound, then starts empty again', () => {
    const keys = new StorageKeys();
    for (let i = 0; i < storageKeysPerResource; i++) keys.set(i % 2 ? 'ns' : '', `n${i}`, `/k/${i}`);
    expect(keys.size).toBe(storageKeysPerResource);
    expect(keys.get('', 'n0')).toBe('/k/0');
    keys.set('ns', 'one-more', '/k/more');
    expect(keys.size).toBe(1);
    expect(keys.get('', 'n0')).toBeUndefined();
    expect(keys.get('ns', 'one-more')).toBe('/k/more');
  });
});
