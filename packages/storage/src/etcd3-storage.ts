import { Etcd3Kv } from './etcd3-kv.js';
import type { Etcd3KvOptions } from './etcd3-kv.js';
import { MvccStorage } from './mvcc-storage.js';
import type { MvccStorageOptions } from './mvcc-storage.js';

export type Etcd3StorageOptions = Etcd3KvOptions & MvccStorageOptions;

/**
 * etcd v3 as the backend (`--etcd-servers`): several API servers on one etcd share revisions
 * and see each other's writes through watch.
 */
export class Etcd3Storage extends MvccStorage {
  constructor(opts: Etcd3StorageOptions) {
    super(new Etcd3Kv(opts), opts);
  }
}
