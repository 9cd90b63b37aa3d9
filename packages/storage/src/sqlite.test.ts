import { spawn } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { isStatusError } from '@plat/api-model';
import { SqliteStorage, openStorage } from './index.js';
import { runStorageContract } from './testing.js';
import { bundleForChild } from '../test/bundle-for-child.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'plat-sqlite-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

runStorageContract('sqlite', { open: () => openStorage({ backend: 'sqlite', dataDir: tempDir() }) });
runStorageContract('sqlite + watch cache', { open: () => openStorage({ backend: 'sqlite', dataDir: tempDir() }, { watchCache: true, watchCacheOptions: { freshnessTimeoutMs: 250 } }) });

const ctb = (name: string) => ({ metadata: { name }, spec: { name } });
const key = (name: string) => `/certificates.plat.io/clustertrustbundles/${name}`;
const prefixOf = () => '/certificates.plat.io/clustertrustbundles';

describe('sqlite storage', () => {
  it('keeps objects, revisions, history and the compaction point across a clean restart', async () => {
    const dataDir = tempDir();
    const s1 = new SqliteStorage({ dataDir, compactIntervalMs: 0 });
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    const a = await s1.create(key('a'), ctb('a'));
    await s1.create(key('b'), ctb('b'));
    await s1.compact(Number(a.metadata?.resourceVersion));
    const b2 = await s1.guaranteedUpdate(key('b'), (c) => ({ ...c, spec: { v: 2 } }));
    await s1.close();

    const s2 = new SqliteStorage({ dataDir, compactIntervalMs: 0 });
    try {
      expect(await s2.currentRevision()).toBe(Number(b2.metadata?.resourceVersion));
      expect(await s2.get(key('b'))).toEqual(b2);
      expect(await s2.compactedRevision()).toBe(Number(a.metadata?.resourceVersion));
      const w = await s2.watch('/certificates.plat.io/clustertrustbundles', { resourceVersion: a.metadata?.resourceVersion });
      const it = w[Symbol.asyncIterator]();
      const first = (await it.next()).value;
      expect(first?.type).toBe('ADDED');
      const second = (await it.next()).value;
      expect(second?.type).toBe('MODIFIED');
      expect(second?.prevObject?.spec).toEqual({ name: 'b' });
      w.stop();
      const c = await s2.create(key('c'), ctb('c'));
      expect(Number(c.metadata?.resourceVersion)).toBe(Number(b2.metadata?.resourceVersion) + 1);
    } finally {
      await s2.close();
    }
  });

  it('takes an online backup that opens as a data dir with the same state', async () => {
    const s = new SqliteStorage({ dataDir: tempDir(), compactIntervalMs: 0 });
    const restoreDir = tempDir();
    try {
      await s.create(key('a'), ctb('a'));
      await s.create(key('b'), ctb('b'));
      await s.backup(path.join(restoreDir, 'storage.db'));
      await s.create(key('after-backup'), ctb('after-backup'));
    } finally {
      await s.close();
    }
    const r = new SqliteStorage({ dataDir: restoreDir, compactIntervalMs: 0 });
    try {
      const l = await r.list('/certificates.plat.io/clustertrustbundles');
      expect(l.items.map((o) => o.metadata?.name)).toEqual(['a', 'b']);
      expect(await r.currentRevision()).toBe(Number(l.resourceVersion));
    } finally {
      await r.close();
    }
  });

  it('refuses a data dir another process holds', async () => {
    const dataDir = tempDir();
    const s1 = new SqliteStorage({ dataDir, compactIntervalMs: 0 });
    await s1.create(key('a'), ctb('a'));
    try {
      let err: unknown;
      try {
        new SqliteStorage({ dataDir, compactIntervalMs: 0 });
      } catch (e) {
        err = e;
      }
      expect(isStatusError(err, 'ServiceUnavailable')).toBe(true);
      expect((err as Error).message).toBe(`storage data dir ${dataDir} is in use by another process`);
    } finally {
      await s1.close();
    }
  });

  it('compacts periodically, keeping one period of history', async () => {
    const s = new SqliteStorage({ dataDir: tempDir(), compactIntervalMs: 60 });
    try {
      const a = await s.create(key('a'), ctb('a'));
      for (let i = 0; i < 20; i++) await s.guaranteedUpdate(key('a'), (c) => ({ ...c, spec: { i } }));
      const deadline = Date.now() + 15_000;
      while ((await s.compactedRevision()) < Number(a.metadata?.resourceVersion) + 20 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 30));
      }
      expect(await s.compactedRevision()).toBeGreaterThanOrEqual(Number(a.metadata?.resourceVersion) + 20);
      await expect(s.watch('/certificates.plat.io/clustertrustbundles', { resourceVersion: a.metadata?.resourceVersion })).rejects.toMatchObject({
        code: 410,
      });
      expect((await s.get(key('a'))).spec).toEqual({ i: 19 });
    } finally {
      await s.close();
    }
  });

  it('loses no acknowledged write when the writing process is killed with SIGKILL', async () => {
    const dataDir = tempDir();
    const script = await bundleForChild('sqlite-writer-child.ts');
    dirs.push(path.dirname(script));
    const child = spawn(process.execPath, [script, dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const acked = new Map<string, number>();
    let counter = 0;
    let maxRv = 0;
    const lines = createInterface({ input: child.stdout });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    let acks = 0;
    const killAt = 150;
    for await (const line of lines) {
      const [word, kind, name, n, rv] = line.split(' ');
      if (word !== 'ack') continue;
      acks++;
      maxRv = Math.max(maxRv, Number(rv));
      if (kind === 'create') acked.set(name, Number(rv));
      else counter = Number(n);
      // Kill mid-stream: the child is writing as fast as it can.
      if (acks === killAt) child.kill('SIGKILL');
    }
    expect(await exited).toBe('SIGKILL');
    expect(stderr).toBe('');
    expect(acks).toBeGreaterThanOrEqual(killAt);

    const s = new SqliteStorage({ dataDir, compactIntervalMs: 0 });
    try {
      expect(await s.currentRevision()).toBeGreaterThanOrEqual(maxRv);
      for (const [name, rv] of acked) {
        const got = await s.get(key(name));
        expect(Number(got.metadata?.resourceVersion)).toBe(rv);
      }
      const c = await s.get(key('counter'));
      expect((c.spec as { n: number }).n).toBeGreaterThanOrEqual(counter);
      const next = await s.create(key('after-restart'), ctb('after-restart'));
      expect(Number(next.metadata?.resourceVersion)).toBeGreaterThan(maxRv);
    } finally {
      await s.close();
    }
  });

  it('refuses writes with 503 and is not ready once its data dir is removed under it', async () => {
    const dataDir = tempDir();
    const s = new SqliteStorage({ dataDir, compactIntervalMs: 0 });
    try {
      const a = await s.create(key('a'), ctb('a'));
      expect(await s.ready()).toBe(true);
      rmSync(dataDir, { recursive: true, force: true });
      const refused = await s.create(key('b'), ctb('b')).catch((err: unknown) => err);
      expect(isStatusError(refused) && refused.status).toMatchObject({
        code: 503,
        reason: 'ServiceUnavailable',
        message: `storage is unavailable: the database file ${path.join(dataDir, 'storage.db')} was removed after the server opened it; writes are refused until the server is restarted`,
      });
      await expect(s.guaranteedUpdate(key('a'), (c) => ({ ...c, spec: { v: 2 } }))).rejects.toMatchObject({ code: 503 });
      await expect(s.delete(key('a'))).rejects.toMatchObject({ code: 503 });
      await expect(s.compact(Number(a.metadata?.resourceVersion))).rejects.toMatchObject({ code: 503 });
      expect(await s.ready()).toBe(false);
    } finally {
      await s.close();
    }
  });

  it('refuses writes once its database file is replaced by another', async () => {
    const dataDir = tempDir();
    const s = new SqliteStorage({ dataDir, compactIntervalMs: 0 });
    try {
      await s.create(key('a'), ctb('a'));
      const copy = path.join(tempDir(), 'copy.db');
      await s.backup(copy);
      renameSync(copy, s.file);
      await expect(s.create(key('b'), ctb('b'))).rejects.toMatchObject({ code: 503, message: expect.stringContaining('was replaced after the server opened it') });
      expect(await s.ready()).toBe(false);
    } finally {
      await s.close();
    }
  });

  it('is not ready after a failed write until a write succeeds again (a read-only database)', async () => {
    const s = new SqliteStorage({ dataDir: tempDir(), compactIntervalMs: 0 });
    // SQLite's own switch for a database that refuses every write, as a read-only disk does.
    const db = (s as unknown as { sqlite: { db: { pragma(p: string): unknown } } }).sqlite.db;
    try {
      await s.create(key('a'), ctb('a'));
      db.pragma('query_only = ON');
      await expect(s.create(key('b'), ctb('b'))).rejects.toMatchObject({ code: 500, reason: 'InternalError' });
      expect(await s.ready()).toBe(false);
      expect(await s.ready()).toBe(false);
      db.pragma('query_only = OFF');
      expect(await s.ready()).toBe(true);
      await s.create(key('b'), ctb('b'));
    } finally {
      await s.close();
    }
  });

  it('delivers a watch from far back row by row, and stops at the byte bound of the watcher', async () => {
    const s = new SqliteStorage({ dataDir: tempDir(), compactIntervalMs: 0 });
    try {
      const first = await s.create(key('big'), ctb('big'));
      for (let i = 0; i < 30; i++) await s.guaranteedUpdate(key('big'), (c) => ({ ...c, spec: { i, blob: 'x'.repeat(200_000) } }));
      const all = await s.watch(prefixOf(), { resourceVersion: first.metadata?.resourceVersion });
      const seen: number[] = [];
      for await (const e of all) {
        seen.push((e.object as { spec: { i: number } }).spec.i);
        if (seen.length === 30) break;
      }
      expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => i));
      const bounded = await s.watch(prefixOf(), { resourceVersion: first.metadata?.resourceVersion, maxQueuedBytes: 1_000_000 });
      const types: string[] = [];
      for await (const e of bounded) types.push(e.type);
      expect(types).toEqual(['ERROR']);
    } finally {
      await s.close();
    }
  });
});
