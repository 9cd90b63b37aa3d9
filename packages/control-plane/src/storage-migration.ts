import { isDeepStrictEqual } from 'node:util';
import { isStatusError, StatusReason, type ApiObject } from '@plat/api-model';
import type { ResourceDefinition } from '@plat/server';
import { collectionPrefix, type Storage } from '@plat/storage';

/** What a migration did to one resource. */
export interface ResourceMigration {
  /** `resource.group` (`namespaces` for the core group), as Kubernetes names a GroupResource. */
  resource: string;
  /** Objects read. */
  scanned: number;
  /** Objects written back in the storage version (each got a new resourceVersion). */
  rewritten: number;
  /** False when the run stopped (signal, error) inside this resource: a rerun finishes it. */
  complete: boolean;
}

export interface StorageMigrationOptions {
  /** Stops after the object being rewritten; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called once per resource when it is done, or stopped in (`complete: false`), before the promise settles. */
  onResource?(report: ResourceMigration): void;
  /** Objects read per list page (default 500, the chunk of Kubernetes' migrator, core.go `defaultChunkLimit`). */
  pageSize?: number;
}

const defaultPageSize = 500;
/** Lists of one resource started over after a 410 before giving up (each pass rewrites what it reaches). */
const maxListPasses = 5;

function groupResource(def: ResourceDefinition): string {
  return def.group ? `${def.resource}.${def.group}` : def.resource;
}

/** The object's key, as the generic REST handlers store it (`/<group>/<resource>/[<namespace>/]<name>`). */
function keyOf(prefix: string, obj: ApiObject): string {
  const { namespace, name } = obj.metadata ?? {};
  return namespace ? `${prefix}${namespace}/${name}` : `${prefix}${name}`;
}

/**
 * Rewrites one object in its storage version with a compare-and-swap on its revision: a write
 * that came in between wins, and the object is read again and converted from that state (an
 * object deleted and created again meanwhile included). Answers whether a new revision was
 * written: false when the current object is in the storage version already, or is gone.
 * Kubernetes' migrator does the same through the API (kube-storage-version-migrator,
 * pkg/migrator/core.go `migrateOneItem`: a conflict gets the object again, NotFound is done).
 */
async function rewrite(storage: Storage, key: string, toStorageVersion: (obj: ApiObject) => ApiObject, signal?: AbortSignal): Promise<boolean> {
  let readAt: string | undefined;
  try {
    const written = await storage.guaranteedUpdate(
      key,
      (current) => {
        readAt = current.metadata?.resourceVersion;
        return toStorageVersion(current);
      },
      { signal },
    );
    return written.metadata?.resourceVersion !== readAt;
  } catch (err) {
    if (isStatusError(err, StatusReason.NotFound)) return false;
    throw err;
  }
}

/**
 * Rewrites every stored object of `resources` whose stored form differs from its storage version
 * (ResourceDefinition.toStorageVersion), as Kubernetes' storage version migrator does with no-op
 * updates: each rewrite is an ordinary update, so the object gets a new resourceVersion and
 * watchers see MODIFIED. Idempotent: a second run reads everything and writes nothing. Safe to
 * interrupt (signal, or a crash): every object is written whole, in one transaction, and a rerun
 * finishes what is left. Resources without the hook are read (counted) but never written;
 * create-only ones (the reviews) store nothing and are skipped.
 */
export async function migrateStorage(storage: Storage, resources: readonly ResourceDefinition[], opts: StorageMigrationOptions = {}): Promise<ResourceMigration[]> {
  const reports: ResourceMigration[] = [];
  for (const def of resources) {
    if (def.createOnly) continue;
    const report: ResourceMigration = { resource: groupResource(def), scanned: 0, rewritten: 0, complete: false };
    try {
      for (let pass = 1; ; pass++) {
        try {
          report.scanned = 0;
          await migrateResource(storage, def, opts, report);
          break;
        } catch (err) {
          // The pages of a list read one snapshot; a compaction of it (a running server's, on
          // etcd) answers 410: list again. What was rewritten is a no-op the second time.
          if (!isStatusError(err) || err.code !== 410 || pass >= maxListPasses) throw err;
        }
      }
      report.complete = true;
    } finally {
      reports.push(report);
      opts.onResource?.(report);
    }
  }
  return reports;
}

/** Lists a resource page by page and rewrites what is not in its storage version, counting into `report`. */
async function migrateResource(storage: Storage, def: ResourceDefinition, opts: StorageMigrationOptions, report: ResourceMigration): Promise<void> {
  const prefix = collectionPrefix(def.group, def.resource);
  let continueToken: string | undefined;
  do {
    opts.signal?.throwIfAborted();
    const page = await storage.list(prefix, { limit: opts.pageSize ?? defaultPageSize, continue: continueToken, signal: opts.signal });
    for (const listed of page.items) {
      opts.signal?.throwIfAborted();
      report.scanned++;
      const convert = def.toStorageVersion;
      if (!convert || isDeepStrictEqual(convert(listed), listed)) continue;
      if (await rewrite(storage, keyOf(prefix, listed), convert, opts.signal)) report.rewritten++;
    }
    continueToken = page.continue;
  } while (continueToken);
}
