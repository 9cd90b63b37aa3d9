import type { Storage } from './interface.js';
import { Etcd3Storage } from './etcd3-storage.js';
import type { Etcd3KvOptions } from './etcd3-kv.js';
import { MemoryStorage } from './memory-storage.js';
import type { MvccStorageOptions } from './mvcc-storage.js';
import { SqliteStorage } from './sqlite-storage.js';
import { WatchCache } from './watch-cache.js';
import type { WatchCacheOptions } from './watch-cache.js';

export interface MemoryBackendOptions {
  backend: 'memory';
}

export interface SqliteBackendOptions {
  backend: 'sqlite';
  /** Folder holding the database file (created with mode 0700 when missing). */
  dataDir: string;
  /** Automatic compaction period in ms (default 5 minutes; 0 disables). */
  compactIntervalMs?: number;
}

/** etcd v3 (`--etcd-servers`, `--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`, `--etcd-prefix`); see docs/operations-storage.md. */
export interface Etcd3BackendOptions extends Pick<Etcd3KvOptions, 'servers' | 'caFile' | 'certFile' | 'keyFile' | 'prefix' | 'dial' | 'compactIntervalMs'> {
  backend: 'etcd3';
}

export type BackendOptions = MemoryBackendOptions | SqliteBackendOptions | Etcd3BackendOptions;

export interface OpenStorageExtra extends MvccStorageOptions {
  /** Serve reads and watches from an in-memory watch cache above the backend. */
  watchCache?: boolean;
  /** Tuning of the watch cache (window size, freshness timeout, progress period). */
  watchCacheOptions?: Omit<WatchCacheOptions, 'maxQueuedEvents' | 'bookmarkIntervalMs'>;
}

/** Opens the configured backend, optionally behind a watch cache. The server's only entry point. */
export async function openStorage(opts: BackendOptions, extra: OpenStorageExtra = {}): Promise<Storage> {
  const { watchCache, watchCacheOptions, ...mvcc } = extra;
  let storage: Storage;
  switch (opts.backend) {
    case 'memory':
      storage = new MemoryStorage(mvcc);
      break;
    case 'sqlite':
      storage = new SqliteStorage({ ...mvcc, dataDir: opts.dataDir, compactIntervalMs: opts.compactIntervalMs });
      break;
    case 'etcd3':
      storage = new Etcd3Storage({ ...mvcc, servers: opts.servers, caFile: opts.caFile, certFile: opts.certFile, keyFile: opts.keyFile, prefix: opts.prefix, dial: opts.dial, compactIntervalMs: opts.compactIntervalMs });
      break;
    default:
      throw new TypeError(`unknown storage backend ${JSON.stringify((opts as { backend: unknown }).backend)}`);
  }
  if (opts.backend === 'etcd3') {
    // Fail at start, with the reason, when etcd cannot be reached (kube-apiserver does too).
    try {
      await storage.currentRevision();
    } catch (err) {
      await storage.close();
      throw err;
    }
  }
  if (!watchCache) return storage;
  try {
    return await WatchCache.open(storage, { ...watchCacheOptions, ...mvcc });
  } catch (err) {
    await storage.close();
    throw err;
  }
}
