import * as assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isStatusError } from '@plat/api-model';
import { openStorage } from '@plat/storage';

// The embedded default: SQLite in a data directory, behind a watch cache. `{ backend: 'memory' }`
// and `{ backend: 'etcd3', servers: [...] }` give the same contract.
const dataDir = await mkdtemp(join(tmpdir(), 'plat-storage-'));
const storage = await openStorage({ backend: 'sqlite', dataDir }, { watchCache: true });
try {
  const prefix = '/certificates.plat.io/clustertrustbundles/';
  const watch = await storage.watch(prefix, { resourceVersion: String(await storage.currentRevision()) });

  // create sets uid, creationTimestamp and resourceVersion (the new revision).
  const created = await storage.create(`${prefix}roots`, { metadata: { name: 'roots', labels: { env: 'prod' } } });
  assert.ok(created.metadata?.uid);

  // Updates are compare-and-swap: tryUpdate runs again when another writer got there first.
  const updated = await storage.guaranteedUpdate(`${prefix}roots`, (current) => ({
    ...current,
    metadata: { ...current.metadata, labels: { env: 'staging' } },
  }));
  assert.ok(Number(updated.metadata?.resourceVersion) > Number(created.metadata?.resourceVersion));

  // Errors are Kubernetes Status errors: 409 AlreadyExists, 404 NotFound, 410 Gone...
  const again = await storage.create(`${prefix}roots`, { metadata: { name: 'roots' } }).catch((err: unknown) => err);
  assert.ok(isStatusError(again) && again.status.code === 409);

  const list = await storage.list(prefix, { limit: 10 });
  assert.deepEqual(list.items.map((o) => o.metadata?.name), ['roots']);

  // The watch saw both changes, in revision order.
  const seen: string[] = [];
  for await (const event of watch) {
    seen.push(event.type);
    if (seen.length === 2) break;
  }
  assert.deepEqual(seen, ['ADDED', 'MODIFIED']);
  watch.stop();
} finally {
  await storage.close();
  await rm(dataDir, { recursive: true, force: true });
}
