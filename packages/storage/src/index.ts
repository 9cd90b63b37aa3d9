export * from './interface.js';
export { MemoryStorage, type MemoryStorageOptions } from './memory-storage.js';
export { Etcd3Storage, type Etcd3StorageOptions } from './etcd3-storage.js';
export { SqliteStorage, type SqliteStorageOptions } from './sqlite-storage.js';
export { defaultSqliteFileName } from './sqlite-kv.js';
export { MvccStorage, type MvccStorageOptions } from './mvcc-storage.js';
export {
  openStorage,
  type BackendOptions,
  type Etcd3BackendOptions,
  type MemoryBackendOptions,
  type OpenStorageExtra,
  type SqliteBackendOptions,
} from './open-storage.js';
export { WatchCache, defaultWatchCacheCapacity, defaultWatchCacheCapacityBytes, type WatchCacheOptions } from './watch-cache.js';
export { optimisticLockErrorMsg, optimisticLockConflict } from './storage-errors.js';
export { collectionPrefix, keyInfo, objectKey, type KeyInfo } from './storage-key.js';
export { Reflector, type ReflectorHandlers, type ReflectorLogger, type ReflectorOptions } from './reflector.js';
export { saveSnapshot, verifySnapshot, restoreSnapshot, SnapshotError, defaultRestoreRevisionBump, type SnapshotErrorCode, type SnapshotInfo, type SnapshotSource, type RestoreSnapshotOptions, type RestoredSnapshot } from './snapshot.js';
