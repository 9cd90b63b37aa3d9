import { MemoryKv } from './memory-kv.js';
import { MvccStorage } from './mvcc-storage.js';
import type { MvccStorageOptions } from './mvcc-storage.js';

/** Storage kept in process memory: for tests and `--storage-backend=memory`. Lost on exit. */
export class MemoryStorage extends MvccStorage {
  constructor(opts: MvccStorageOptions = {}) {
    super(new MemoryKv(), opts);
  }
}
