import { createServer } from 'node:net';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isStatusError } from '@plat/api-model';
import { MemoryStorage, SqliteStorage, WatchCache, openStorage } from './index.js';
import type { BackendOptions } from './index.js';

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

describe('openStorage', () => {
  it('opens memory and sqlite backends, with or without the watch cache', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'plat-open-'));
    try {
      const m = await openStorage({ backend: 'memory' });
      expect(m).toBeInstanceOf(MemoryStorage);
      await m.close();
      const dataDir = path.join(dir, 'nested', 'data');
      const s = await openStorage({ backend: 'sqlite', dataDir });
      expect(s).toBeInstanceOf(SqliteStorage);
      expect(existsSync(path.join(dataDir, 'storage.db'))).toBe(true);
      await s.close();
      const c = await openStorage({ backend: 'sqlite', dataDir }, { watchCache: true });
      expect(c).toBeInstanceOf(WatchCache);
      expect(await c.ready()).toBe(true);
      await c.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails at start with 503 when etcd cannot be reached', async () => {
    const port = await closedPort();
    const err = await openStorage({ backend: 'etcd3', servers: [`http://127.0.0.1:${port}`], dial: { faultHandling: {} } }).catch((e: unknown) => e);
    expect(isStatusError(err, 'ServiceUnavailable')).toBe(true);
    expect((err as Error).message).toMatch(/^storage backend etcd3 is unavailable: /);
  });

  it('rejects an unknown backend', async () => {
    await expect(openStorage({ backend: 'mysql' } as unknown as BackendOptions)).rejects.toThrow('unknown storage backend "mysql"');
  });
});
