import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { SqliteKv } from './sqlite-kv.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'plat-sqlite-kv-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type Op = { op: 'create' | 'update' | 'delete' | 'read'; key: number; stale: boolean };

const ops = fc.array(
  fc.record({ op: fc.constantFrom<Op['op']>('create', 'update', 'delete', 'read'), key: fc.integer({ min: 0, max: 3 }), stale: fc.boolean() }),
  { maxLength: 40 },
);

describe('SqliteKv modRevision', () => {
  it('answers what the database holds after any sequence of writes, failed writes and reads (the in-memory newest revisions stay exact)', async () => {
    await fc.assert(
      fc.asyncProperty(ops, async (sequence) => {
        const kv = new SqliteKv({ dataDir: tempDir(), compactIntervalMs: 0 });
        try {
          const keyOf = (k: number) => `/g/r/k${k}`;
          for (const { op, key, stale } of sequence) {
            const k = keyOf(key);
            const { record } = await kv.get(k);
            // `stale`: a write with an expected revision that is not the current one, which fails.
            const expected = (record?.modRevision ?? 0) + (stale ? 1000 : 0);
            if (op === 'create') await kv.create(k, `v${expected}`);
            if (op === 'update') await kv.update(k, `u${expected}`, expected);
            if (op === 'delete') await kv.delete(k, expected);
            if (op === 'read') await kv.modRevision(k);
            for (let i = 0; i <= 3; i++) {
              const truth = (await kv.get(keyOf(i))).record?.modRevision;
              expect((await kv.modRevision(keyOf(i))).modRevision).toBe(truth);
            }
          }
        } finally {
          await kv.close();
        }
      }),
      { numRuns: 40 },
    );
  });

  it('forgets what it knew when a write fails after its commit (the database file removed)', async () => {
    const dataDir = tempDir();
    const kv = new SqliteKv({ dataDir, compactIntervalMs: 0 });
    try {
      const created = await kv.create('/g/r/a', 'one');
      expect(created.succeeded).toBe(true);
      const first = (await kv.modRevision('/g/r/a')).modRevision;
      // The database file is removed: the next write commits to the open (unlinked) file and is
      // refused; the file the store reads from holds the new row, and modRevision must say so.
      rmSync(path.join(dataDir, 'storage.db'));
      await expect(kv.update('/g/r/a', 'two', first!)).rejects.toThrow(/storage is unavailable/);
      const { record } = await kv.get('/g/r/a');
      expect(record?.value).toBe('two');
      expect((await kv.modRevision('/g/r/a')).modRevision).toBe(record?.modRevision);
    } finally {
      await kv.close();
    }
  });
});
