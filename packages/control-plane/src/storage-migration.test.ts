import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ApiObject } from '@plat/api-model';
import type { ResourceDefinition } from '@plat/server';
import { Etcd3Storage, MemoryStorage, SqliteStorage, collectionPrefix, objectKey, type Storage, type TryUpdate, type UpdateOptions, type WatchEvent } from '@plat/storage';
import { TestEtcd, hasEtcd } from '@plat/storage/testing';
import { migrateStorage, type ResourceMigration } from './storage-migration.js';
import { servedResourceDefinitions } from './served-resources.js';

// Storage version migration as Kubernetes' storage version migrator does it
// (kubernetes-sigs/kube-storage-version-migrator, pkg/migrator/core.go `migrateOneItem`: a no-op
// update per object listed in chunks, a conflict gets the object again, NotFound is done),
// here directly on the storage: the old stored version is `v1alpha1` of a test resource whose
// toStorageVersion rewrites apiVersion to `v1`.

const group = 'migration.plat.io';
const total = 12;

function widgets(): ResourceDefinition {
  return {
    group,
    version: 'v1',
    resource: 'widgets',
    singular: 'widget',
    kind: 'Widget',
    listKind: 'WidgetList',
    namespaced: true,
    shortNames: [],
    categories: [],
    definitionName: 'io.plat.migration.v1.Widget',
    definitions: {},
    toStorageVersion: (obj: ApiObject) => (obj.apiVersion === `${group}/v1` ? obj : { ...obj, apiVersion: `${group}/v1` }),
    strategy: {
      validate: () => [],
      validateUpdate: () => [],
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: true,
      selectableFields: (obj) => ({ 'metadata.name': obj.metadata?.name ?? '' }),
      selectableFieldNames: ['metadata.name'],
      tableColumns: [],
      tableCells: () => [],
    },
  };
}

function key(i: number): string {
  return objectKey(group, 'widgets', i % 2 ? 'ns-odd' : 'ns-even', `w-${i}`);
}

/** Objects as an earlier version stored them. */
async function seed(storage: Storage): Promise<void> {
  for (let i = 0; i < total; i++) {
    await storage.create(key(i), { apiVersion: `${group}/v1alpha1`, kind: 'Widget', metadata: { name: `w-${i}`, namespace: i % 2 ? 'ns-odd' : 'ns-even' }, spec: { size: i } });
  }
}

async function stored(storage: Storage): Promise<ApiObject[]> {
  return (await storage.list(collectionPrefix(group, 'widgets'))).items;
}

/**
 * The real store, with two hooks on guaranteedUpdate: `after` runs once an update returned
 * (to abort the migration after K objects), `before(key, current)` once the migration read an
 * object and before it writes it back (to write in between, as a client of a running server).
 */
function instrumented(inner: Storage, hooks: { after?: () => void; before?: (key: string) => Promise<void> }): Storage {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop !== 'guaranteedUpdate') return Reflect.get(target, prop, receiver) as unknown;
      return async (k: string, tryUpdate: TryUpdate, opts?: UpdateOptions) => {
        const out = await target.guaranteedUpdate(
          k,
          async (current) => {
            const next = await tryUpdate(current);
            await hooks.before?.(k);
            return next;
          },
          opts,
        );
        hooks.after?.();
        return out;
      };
    },
  });
}

interface Backend {
  name: string;
  available: boolean;
  open(): Promise<Storage>;
  cleanup(): Promise<void>;
}

function backends(): Backend[] {
  let dir = '';
  let etcd: TestEtcd | undefined;
  let prefixN = 0;
  return [
    { name: 'memory', available: true, open: async () => new MemoryStorage({ compactIntervalMs: 0 }), cleanup: async () => undefined },
    {
      name: 'sqlite',
      available: true,
      open: async () => {
        dir ||= fs.mkdtempSync(path.join(os.tmpdir(), 'plat-migrate-'));
        return new SqliteStorage({ dataDir: path.join(dir, String(prefixN++)), compactIntervalMs: 0 });
      },
      cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }),
    },
    {
      name: 'etcd3',
      available: hasEtcd,
      open: async () => {
        if (!etcd) {
          etcd = new TestEtcd();
          await etcd.start();
        }
        return new Etcd3Storage({ servers: [etcd.url], prefix: `/migrate-${prefixN++}`, compactIntervalMs: 0 });
      },
      cleanup: async () => etcd?.destroy(),
    },
  ];
}

if (!hasEtcd) process.stderr.write('storage-migration.test: /usr/bin/etcd is missing (apt-get install etcd-server), the etcd3 cases are skipped\n');

for (const backend of backends()) {
  (backend.available ? describe : describe.skip)(`migrateStorage on ${backend.name}`, () => {
    afterAll(() => backend.cleanup());

    it('rewrites every object once, stops when aborted after K objects, and a rerun finishes; a third run rewrites nothing', async () => {
      const storage = await backend.open();
      try {
        await seed(storage);
        const before = new Map((await stored(storage)).map((o) => [o.metadata!.name!, o]));
        const watch = await storage.watch(collectionPrefix(group, 'widgets'), { resourceVersion: String(await storage.currentRevision()) });

        const k = 5;
        const stop = new AbortController();
        let updates = 0;
        const reports: ResourceMigration[] = [];
        const interrupted = migrateStorage(instrumented(storage, { after: () => ++updates === k && stop.abort(new Error('stop here')) }), [widgets()], {
          signal: stop.signal,
          pageSize: 4,
          onResource: (r) => reports.push(r),
        });
        await expect(interrupted).rejects.toThrow('stop here');
        expect(reports).toEqual([{ resource: `widgets.${group}`, scanned: k, rewritten: k, complete: false }]);
        expect((await stored(storage)).filter((o) => o.apiVersion === `${group}/v1`)).toHaveLength(k);

        const second = await migrateStorage(storage, [widgets()], { pageSize: 4 });
        expect(second).toEqual([{ resource: `widgets.${group}`, scanned: total, rewritten: total - k, complete: true }]);
        const after = await stored(storage);
        expect(after.map((o) => o.apiVersion)).toEqual(Array(total).fill(`${group}/v1`));
        for (const o of after) {
          const old = before.get(o.metadata!.name!)!;
          // A normal update: same object, a new resourceVersion.
          expect({ uid: o.metadata!.uid, spec: o.spec }).toEqual({ uid: old.metadata!.uid, spec: old.spec });
          expect(BigInt(o.metadata!.resourceVersion!)).toBeGreaterThan(BigInt(old.metadata!.resourceVersion!));
        }

        const third = await migrateStorage(storage, [widgets()]);
        expect(third).toEqual([{ resource: `widgets.${group}`, scanned: total, rewritten: 0, complete: true }]);
        expect((await stored(storage)).map((o) => o.metadata!.resourceVersion)).toEqual(after.map((o) => o.metadata!.resourceVersion));

        // Watchers saw one MODIFIED per object, as for any update.
        const events: WatchEvent[] = [];
        for await (const e of watch) {
          events.push(e);
          if (events.length === total) break;
        }
        watch.stop();
        expect(events.map((e) => e.type)).toEqual(Array(total).fill('MODIFIED'));
        expect(new Set(events.map((e) => (e.object as ApiObject).metadata!.name)).size).toBe(total);
      } finally {
        await storage.close();
      }
    });

    it('lets a concurrent write win: the object is read again and rewritten from it; a deleted one is skipped, a recreated one converted from its new state', async () => {
      const storage = await backend.open();
      try {
        await seed(storage);
        const raced = key(3);
        // Listed after w-3 (keys sort as strings: ns-odd/w-1, w-11, w-3, w-5, w-7...).
        const deleted = key(7);
        const recreated = key(9);
        const oldUid = (await storage.get(recreated)).metadata!.uid;
        let raceDone = false;
        const racing = instrumented(storage, {
          before: async (k) => {
            if (k === raced && !raceDone) {
              raceDone = true;
              // A client's write between the migration's read and its compare-and-swap.
              await storage.guaranteedUpdate(k, (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { edited: 'concurrently' } } }));
              // And a delete of an object listed already, before the migration reaches it.
              await storage.delete(deleted);
              // And another deleted and created again (a new uid), as a server of the new version
              // writes it: in the storage version already, so nothing to write.
              await storage.delete(recreated);
              await storage.create(recreated, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w-9', namespace: 'ns-odd' }, spec: { size: 99 } });
            }
          },
        });
        const defs = [widgets()];
        const [report] = await migrateStorage(racing, defs, { pageSize: 100 });
        expect(report.scanned).toBe(total);
        // Everything listed but the deleted and the recreated object.
        expect(report.rewritten).toBe(total - 2);
        const byKey = new Map((await stored(storage)).map((o) => [o.metadata!.name!, o]));
        expect(byKey.has('w-7')).toBe(false);
        expect(byKey.get('w-9')).toMatchObject({ spec: { size: 99 } });
        expect(byKey.get('w-9')!.metadata!.uid).not.toBe(oldUid);
        expect(byKey.get('w-3')).toMatchObject({ apiVersion: `${group}/v1`, metadata: { labels: { edited: 'concurrently' } } });
        expect([...byKey.values()].every((o) => o.apiVersion === `${group}/v1`)).toBe(true);
      } finally {
        await storage.close();
      }
    });
  });
}

describe("the apiserver's resources", () => {
  it('are all read, review APIs skipped, and objects already in their storage version left alone', async () => {
    const storage = new MemoryStorage({ compactIntervalMs: 0 });
    try {
      await storage.create('//namespaces/team-a', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
      const reports = await migrateStorage(storage, servedResourceDefinitions());
      expect(reports.find((r) => r.resource === 'namespaces')).toEqual({ resource: 'namespaces', scanned: 1, rewritten: 0, complete: true });
      expect(reports.map((r) => r.resource)).toEqual(expect.arrayContaining(['clustertrustbundles.certificates.plat.io', 'clusterroles.rbac.authorization.plat.io']));
      // The review APIs store nothing.
      expect(reports.some((r) => r.resource.includes('review'))).toBe(false);
    } finally {
      await storage.close();
    }
  });
});
