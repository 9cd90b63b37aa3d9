import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { bundleForChild } from '../test/bundle-for-child.js';
import { SnapshotError, SqliteStorage, openStorage, restoreSnapshot, saveSnapshot, verifySnapshot } from './index.js';
import { TestEtcd, etcdBinary, hasEtcd } from './testing.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'plat-snapshot-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const prefix = '/certificates.plat.io/clustertrustbundles';
const key = (name: string) => `${prefix}/${name}`;
const ctb = (name: string) => ({ metadata: { name }, spec: { name } });

async function snapshotOf(objects: string[]): Promise<{ file: string; revision: number }> {
  const dataDir = tempDir();
  const s = new SqliteStorage({ dataDir, compactIntervalMs: 0 });
  for (const name of objects) await s.create(key(name), ctb(name));
  const file = path.join(tempDir(), 'snap.db');
  // Taken while the store is open: the online path.
  const info = await saveSnapshot({ backend: 'sqlite', dataDir }, file);
  await s.close();
  return { file, revision: info.revision };
}

async function rejection(p: Promise<unknown>): Promise<SnapshotError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof SnapshotError) return err;
    throw err;
  }
  throw new Error('expected a SnapshotError');
}

describe('SQLite snapshots', () => {
  it('under write load from another process: every write acknowledged at or below the snapshot revision is restored, none above', async () => {
    const dataDir = tempDir();
    const script = await bundleForChild('sqlite-writer-child.ts');
    dirs.push(path.dirname(script));
    const child = spawn(process.execPath, [script, dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    const acked: { kind: string; name: string; n: number; rv: number }[] = [];
    let ackedBeforeSave = 0;
    let saving: Promise<{ revision: number }> | undefined;
    const file = path.join(tempDir(), 'under-load.db');
    for await (const line of createInterface({ input: child.stdout })) {
      const [word, kind, name, n, rv] = line.split(' ');
      if (word !== 'ack') continue;
      acked.push({ kind: kind!, name: name!, n: Number(n), rv: Number(rv) });
      if (acked.length === 200) {
        ackedBeforeSave = acked.length;
        saving = saveSnapshot({ backend: 'sqlite', dataDir }, file);
      }
      // Keep writing well after the snapshot, then stop the writer.
      if (acked.length === 600) child.kill('SIGKILL');
    }
    await exited;
    const { revision } = await saving!;
    // The writer kept going while the snapshot was taken: it acknowledged writes past it.
    expect(acked.some((a) => a.rv > revision)).toBe(true);
    expect(acked.slice(0, ackedBeforeSave).every((a) => a.rv <= revision)).toBe(true);

    const restoredDir = tempDir();
    const restored = await restoreSnapshot(file, { dataDir: restoredDir });
    expect(restored.revision).toBe(revision);
    const s = new SqliteStorage({ dataDir: restoredDir, compactIntervalMs: 0 });
    try {
      const names = new Set((await s.list(prefix)).items.map((o) => (o as { metadata: { name: string } }).metadata.name));
      for (const a of acked.filter((x) => x.kind === 'create')) expect({ name: a.name, present: names.has(a.name) }).toEqual({ name: a.name, present: a.rv <= revision });
      const counter = (await s.get(key('counter'))) as { spec: { n: number } };
      const lastUpdate = acked.filter((a) => a.kind === 'update' && a.rv <= revision).pop()!;
      expect(counter.spec.n).toBe(lastUpdate.n);
    } finally {
      await s.close();
    }
  }, 60_000);

  it('restores with the revision moved past the snapshot and marked compacted: a watch from a newer resourceVersion gets 410, a relist works', async () => {
    const { file, revision } = await snapshotOf(['a', 'b']);
    const dataDir = tempDir();
    const restored = await restoreSnapshot(file, { dataDir, bumpRevision: 1000 });
    expect(restored).toMatchObject({ format: 'sqlite', revision, keys: 2, restoredRevision: revision + 1000 });
    const s = await openStorage({ backend: 'sqlite', dataDir }, { watchCache: true });
    try {
      expect(await s.currentRevision()).toBe(revision + 1000);
      // A client of the lost store had seen revision + 5 (written after the snapshot).
      await expect(s.watch(prefix, { resourceVersion: String(revision + 5) })).rejects.toMatchObject({ code: 410 });
      const list = await s.list(prefix);
      expect(list.items).toHaveLength(2);
      expect(Number(list.resourceVersion)).toBe(revision + 1000);
      const created = await s.create(key('c'), ctb('c'));
      expect(Number(created.metadata?.resourceVersion)).toBe(revision + 1001);
    } finally {
      await s.close();
    }
  });

  it('refuses a data dir that is not empty unless forced, and then moves past the revision of the store it replaces', async () => {
    const { file, revision } = await snapshotOf(['a']);
    const dataDir = tempDir();
    const old = new SqliteStorage({ dataDir, compactIntervalMs: 0 });
    for (let i = 0; i < 30; i++) await old.create(key(`old-${i}`), ctb(`old-${i}`));
    const oldRevision = await old.currentRevision();
    await old.close();
    const err = await rejection(restoreSnapshot(file, { dataDir, bumpRevision: 0 }));
    expect(err.code).toBe('NotEmpty');
    expect(err.message).toBe(`data dir ${dataDir} is not empty: restoring replaces its storage (storage.db); pass --force to do so`);
    const restored = await restoreSnapshot(file, { dataDir, force: true, bumpRevision: 0 });
    expect(oldRevision).toBeGreaterThan(revision);
    expect(restored.restoredRevision).toBe(oldRevision);
    const s = new SqliteStorage({ dataDir, compactIntervalMs: 0 });
    try {
      expect((await s.list(prefix)).items.map((o) => (o as { metadata: { name: string } }).metadata.name)).toEqual(['a']);
    } finally {
      await s.close();
    }
  });

  it('refuses to restore into a data dir a running store holds', async () => {
    const { file } = await snapshotOf(['a']);
    const dataDir = tempDir();
    const s = new SqliteStorage({ dataDir, compactIntervalMs: 0 });
    try {
      const err = await rejection(restoreSnapshot(file, { dataDir, force: true }));
      expect(err.code).toBe('InUse');
      expect(err.message).toContain(`data dir ${dataDir} is in use by a running server`);
    } finally {
      await s.close();
    }
  });

  it('refuses a truncated, a corrupted and a foreign file with the reason, and leaves the data dir alone', async () => {
    const { file } = await snapshotOf(Array.from({ length: 200 }, (_, i) => `obj-${i}`));
    expect(verifySnapshot(file)).toMatchObject({ format: 'sqlite', keys: 200 });
    const size = statSync(file).size;
    const truncated = path.join(tempDir(), 'truncated.db');
    writeFileSync(truncated, readFileSync(file));
    truncateSync(truncated, Math.floor(size / 2));
    const corrupted = path.join(tempDir(), 'corrupted.db');
    const bytes = readFileSync(file);
    // Cells fill a page from its end: these bytes are the content of the last page.
    for (let i = size - 32 - 600; i < size - 32 - 100; i++) bytes[i] = 0x7b;
    writeFileSync(corrupted, bytes);
    const foreign = path.join(tempDir(), 'notes.txt');
    writeFileSync(foreign, 'not a snapshot\n');
    // An offline copy of storage.db has no SHA-256 trailer: damage inside a value is found by parsing the values.
    const offline = path.join(tempDir(), 'offline.db');
    const plain = Buffer.from(bytes.subarray(0, size - 32));
    writeFileSync(offline, plain);
    for (const bad of [truncated, corrupted, foreign, offline]) {
      const dataDir = path.join(tempDir(), 'data');
      const err = await rejection(restoreSnapshot(bad, { dataDir }));
      expect(err.code).toBe('Invalid');
      expect(err.message).toMatch(new RegExp(`^snapshot ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is (not a valid SQLite storage snapshot: .+|neither a SQLite storage snapshot nor an etcd snapshot)`));
      expect(() => statSync(path.join(dataDir, 'storage.db'))).toThrow();
    }
  });

  it('refuses to save over a path that is not a regular file, and leaves it as it was', async () => {
    const dataDir = tempDir();
    const s = new SqliteStorage({ dataDir, compactIntervalMs: 0 });
    await s.create(key('a'), ctb('a'));
    await s.close();
    const out = tempDir();
    const fifo = path.join(out, 'snap.db');
    execFileSync('mkfifo', [fifo]);
    const err = await rejection(saveSnapshot({ backend: 'sqlite', dataDir }, fifo));
    expect(err.code).toBe('Invalid');
    expect(err.message).toBe(`${fifo} exists and is not a regular file: a snapshot is saved to a file of its own`);
    expect(statSync(fifo).isFIFO()).toBe(true);
    expect(readdirSync(out)).toEqual(['snap.db']);
  });

  it('refuses to save from a data dir without storage', async () => {
    const dataDir = tempDir();
    const err = await rejection(saveSnapshot({ backend: 'sqlite', dataDir }, path.join(dataDir, 'x.db')));
    expect(err.code).toBe('NotFound');
  });
});

if (!hasEtcd) console.warn(`etcd snapshot tests SKIPPED: ${etcdBinary} is missing (install the etcd-server package)`);

(hasEtcd ? describe : describe.skip)('etcd snapshots', () => {
  const etcd = new TestEtcd();
  beforeAll(async () => {
    await etcd.start();
  }, 20_000);
  afterAll(async () => {
    await etcd.destroy();
  });

  it("saves etcd's maintenance snapshot with its SHA-256, refuses a corrupted one, and leaves restoring to etcdutl", async () => {
    const s = await openStorage({ backend: 'etcd3', servers: [etcd.url], prefix: '/snap' });
    let revision: number;
    try {
      for (const name of ['a', 'b', 'c']) await s.create(key(name), ctb(name));
      revision = await s.currentRevision();
    } finally {
      await s.close();
    }
    const file = path.join(tempDir(), 'etcd.db');
    const info = await saveSnapshot({ backend: 'etcd3', servers: [etcd.url] }, file);
    expect(info.format).toBe('etcd3');
    expect(info.revision).toBeGreaterThanOrEqual(revision);
    expect(info.size % 512).toBe(32);
    expect(verifySnapshot(file).format).toBe('etcd3');

    const corrupted = path.join(tempDir(), 'etcd-corrupted.db');
    const bytes = readFileSync(file);
    bytes[8192] = bytes[8192]! ^ 0xff;
    writeFileSync(corrupted, bytes);
    expect(() => verifySnapshot(corrupted)).toThrow(/the etcd snapshot's SHA-256 does not match its content/);

    const err = await rejection(restoreSnapshot(file, { dataDir: tempDir() }));
    expect(err.code).toBe('Unsupported');
    expect(err.message).toContain('etcdutl snapshot restore');
  }, 30_000);
});
