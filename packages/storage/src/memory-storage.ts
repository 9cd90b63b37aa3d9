import { MemoryKv } from './memory-kv.js';
import { MvccStorage } from './mvcc-storage.js';
import type { MvccStorageOptions } from './mvcc-storage.js';

export interface MemoryStorageOptions extends MvccStorageOptions {
  /** Automatic compaction period in ms (default 5 minutes, 0 disables). */
  compactIntervalMs?: number;
}

/** Storage kept in process memory: for tests and `--storage-backend=memory`. Lost on exit. */
export class MemoryStorage extends MvccStorage {
  constructor(opts: MemoryStorageOptions = {}) {
    super(new MemoryKv(opts), opts);
  }
}
