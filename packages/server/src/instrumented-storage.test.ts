import { Registry } from 'prom-client';
import { MemoryStorage } from '@plat/storage';
import { instrumentStorage } from './instrumented-storage.js';
import { createServerMetrics } from './metrics.js';

/** The count of etcd_request_duration_seconds for one operation, from the exported text. */
async function observed(registry: Registry, op: string): Promise<number> {
  const text = await registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`etcd_request_duration_seconds_count{operation="${op}",type="things"}`));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

describe('instrumentStorage', () => {
  it('answers as the storage does, passing every argument through, and times each call, failed ones too', async () => {
    const registry = new Registry();
    const metrics = createServerMetrics(registry);
    const storage = new MemoryStorage();
    const timed = instrumentStorage(storage, metrics, 'things');
    const created = await timed.create('/g/things/a', { metadata: { name: 'a' } });
    expect(created.metadata?.resourceVersion).toBeDefined();
    expect(await timed.get('/g/things/a')).toEqual(await storage.get('/g/things/a'));
    // The options (the third argument of guaranteedUpdate included) reach the storage.
    await expect(timed.get('/g/things/a', { resourceVersion: '999999' })).rejects.toMatchObject({ code: 504 });
    const updated = await timed.guaranteedUpdate('/g/things/a', (cur) => ({ ...cur, spec: { x: 1 } }), { dryRun: true });
    expect(updated.spec).toEqual({ x: 1 });
    expect((await storage.get('/g/things/a')).spec).toBeUndefined();
    await expect(timed.get('/g/things/missing')).rejects.toMatchObject({ code: 404 });
    // A synchronous throw (an invalid key) is a rejection, timed as well.
    await expect(timed.get('no-slash')).rejects.toThrow('invalid storage key');
    expect(await timed.count('/g/things/')).toBe(1);
    expect((await timed.list('/g/things/')).items).toHaveLength(1);
    expect(await observed(registry, 'get')).toBe(4);
    expect(await observed(registry, 'create')).toBe(1);
    expect(await observed(registry, 'guaranteedUpdate')).toBe(1);
    expect(await observed(registry, 'count')).toBe(1);
    expect(await observed(registry, 'list')).toBe(1);
    await timed.close();
  });
});
