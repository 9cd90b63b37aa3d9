import * as assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStorage, restoreSnapshot, saveSnapshot, SnapshotError } from '@plat/storage';

// A snapshot of a SQLite data dir taken while its store keeps serving, restored into another one.
const work = await mkdtemp(join(tmpdir(), 'plat-snapshot-'));
const dataDir = join(work, 'data');
const prefix = '/certificates.plat.io/clustertrustbundles/';
const storage = await openStorage({ backend: 'sqlite', dataDir });
try {
  await storage.create(`${prefix}roots`, { metadata: { name: 'roots' } });
  const saved = await saveSnapshot({ backend: 'sqlite', dataDir }, join(work, 'backup.db'));
  assert.equal(saved.keys, 1);
  // Written after the snapshot: not in it.
  await storage.create(`${prefix}later`, { metadata: { name: 'later' } });

  // A data dir a running store holds is refused.
  const refused = await restoreSnapshot(join(work, 'backup.db'), { dataDir, force: true }).catch((err: unknown) => err);
  assert.ok(refused instanceof SnapshotError && refused.code === 'InUse');

  // Restored elsewhere: the revision moves past the snapshot's and is marked compacted, so a
  // client that saw a newer resourceVersion gets 410 Gone and relists.
  const restored = await restoreSnapshot(join(work, 'backup.db'), { dataDir: join(work, 'restored') });
  assert.equal(restored.restoredRevision, saved.revision + 1_000_000_000);
  const copy = await openStorage({ backend: 'sqlite', dataDir: join(work, 'restored') });
  try {
    assert.deepEqual(
      (await copy.list(prefix)).items.map((o) => o.metadata?.name),
      ['roots'],
    );
  } finally {
    await copy.close();
  }
} finally {
  await storage.close();
  await rm(work, { recursive: true, force: true });
}
