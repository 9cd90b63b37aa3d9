/// <reference types="jest" />
// The suite registers jest tests (describe, it, expect are jest's globals where it runs); the
// reference above types them for this file only and is not part of the shipped declarations.
import { isStatusError } from '@plat/api-model';
import type { StatusError } from '@plat/api-model';
import type { Storage, StoredObject, Watch, WatchEvent } from '../index.js';
import { initialEventsEndAnnotation } from '../index.js';

/**
 * The storage contract, written once and run against every backend and against each of them
 * behind the watch cache. `open` returns a fresh or shared store; each test uses its own prefix.
 */
export interface ContractTarget {
  open(): Promise<Storage>;
  /** Called once after all tests. */
  close?(): Promise<void>;
}

let seq = 0;
/** A prefix no other test uses: `/certificates.plat.io/clustertrustbundles-<n>/`. */
function freshResource(): { prefix: string; key: (name: string) => string } {
  const resource = `clustertrustbundles${++seq}x${Date.now() % 100000}`;
  const prefix = `/certificates.plat.io/${resource}/`;
  return { prefix, key: (name) => prefix + name };
}

function bundle(name: string, extra: Record<string, unknown> = {}): StoredObject {
  return {
    apiVersion: 'certificates.plat.io/v1alpha1',
    kind: 'ClusterTrustBundle',
    metadata: { name, labels: { app: 'test' } },
    spec: { trustBundle: `pem-${name}` },
    ...extra,
  };
}

async function expectStatus(p: Promise<unknown>, code: number, reason: string, message?: string | RegExp): Promise<StatusError> {
  try {
    await p;
  } catch (err) {
    if (!isStatusError(err)) throw err;
    expect({ code: err.code, reason: err.reason }).toEqual({ code, reason });
    if (typeof message === 'string') expect(err.message).toBe(message);
    else if (message) expect(err.message).toMatch(message);
    return err;
  }
  throw new Error(`expected a ${code} ${reason} error, got success`);
}

/** Reads `n` events or fails after `ms`. */
async function take(w: Watch, n: number, ms = 5000): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  if (n === 0) return out;
  const it = w[Symbol.asyncIterator]();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${out.length}/${n} events: ${JSON.stringify(out.map(brief))}`)), ms);
  });
  try {
    while (out.length < n) {
      const r = await Promise.race([it.next(), timeout]);
      if (r.done) throw new Error(`watch ended after ${out.length}/${n} events: ${JSON.stringify(out.map(brief))}`);
      out.push(r.value);
    }
  } finally {
    clearTimeout(timer);
  }
  return out;
}

/** Reads events until one matches, failing after `ms`. */
async function takeUntil(w: Watch, done: (e: WatchEvent) => boolean, ms = 5000): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const [e] = await take(w, 1, Math.max(1, deadline - Date.now()));
    out.push(e);
    if (done(e)) return out;
  }
  throw new Error('timed out');
}

function brief(e: WatchEvent): string {
  const m = (e.object as StoredObject).metadata;
  return `${e.type} ${m?.name ?? ''}@${m?.resourceVersion ?? ''}`;
}

function rv(o: StoredObject | WatchEvent['object']): number {
  return Number((o as StoredObject).metadata?.resourceVersion);
}

/**
 * Registers the contract's tests for one store, in a jest test file: every behaviour of the
 * Storage interface (docs/architecture.md, storage model) that a backend must keep.
 */
export function runStorageContract(name: string, target: ContractTarget): void {
  if (typeof describe !== 'function') throw new Error('runStorageContract registers jest tests: call it from a jest test file');
  describe(`storage contract: ${name}`, () => {
    let s: Storage;
    beforeAll(async () => {
      s = await target.open();
    });
    afterAll(async () => {
      await s?.close();
      await target.close?.();
    });

    describe('create, get, update, delete', () => {
      it('creates with a new revision, a uid and a second-precision UTC creationTimestamp', async () => {
        const { key } = freshResource();
        const before = await s.currentRevision();
        const created = await s.create(key('a'), bundle('a'));
        expect(rv(created)).toBeGreaterThan(before);
        expect(created.metadata?.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(created.metadata?.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
        expect(await s.currentRevision()).toBe(rv(created));
        const got = await s.get(key('a'));
        expect(got).toEqual(created);
        expect(got.spec).toEqual({ trustBundle: 'pem-a' });
      });

      it('answers a shared frozen object from get while it is unchanged, and a new one after a write', async () => {
        const { key } = freshResource();
        await s.create(key('a'), bundle('a'));
        const first = await s.get(key('a'));
        const second = await s.get(key('a'));
        expect(second).toBe(first);
        expect(Object.isFrozen(first)).toBe(true);
        expect(Object.isFrozen(first.metadata)).toBe(true);
        expect(() => {
          (first.spec as { trustBundle: string }).trustBundle = 'changed';
        }).toThrow(TypeError);
        const updated = await s.guaranteedUpdate(key('a'), (cur) => ({ ...cur, spec: { trustBundle: 'new' } }));
        const third = await s.get(key('a'));
        expect(third).not.toBe(first);
        expect(third).toEqual(updated);
        expect(first.spec).toEqual({ trustBundle: 'pem-a' });
        // Deleted (a cached object is not answered any more) and created again under the same
        // name: a different object again.
        await s.delete(key('a'));
        await expectStatus(s.get(key('a')), 404, 'NotFound');
        await s.create(key('a'), bundle('a'));
        const fourth = await s.get(key('a'));
        expect(fourth).not.toBe(third);
        expect(fourth.spec).toEqual({ trustBundle: 'pem-a' });
      });

      it('answers AlreadyExists and NotFound with Kubernetes wording', async () => {
        const { key, prefix } = freshResource();
        const resource = prefix.split('/')[2];
        await s.create(key('a'), bundle('a'));
        await expectStatus(s.create(key('a'), bundle('a')), 409, 'AlreadyExists', `${resource}.certificates.plat.io "a" already exists`);
        const err = await expectStatus(s.get(key('missing')), 404, 'NotFound', `${resource}.certificates.plat.io "missing" not found`);
        expect(err.status.details).toMatchObject({ name: 'missing', group: 'certificates.plat.io', kind: resource });
        await expectStatus(s.delete(key('missing')), 404, 'NotFound');
        await expectStatus(s.guaranteedUpdate(key('missing'), (o) => o), 404, 'NotFound');
      });

      it('refuses an object that already carries a resourceVersion', async () => {
        const { key } = freshResource();
        const obj = bundle('a');
        obj.metadata!.resourceVersion = '5';
        await expectStatus(s.create(key('a'), obj), 500, 'InternalError', 'resourceVersion should not be set on objects to be created');
      });

      it('updates with a strictly higher revision and keeps uid and creationTimestamp', async () => {
        const { key } = freshResource();
        const created = await s.create(key('a'), bundle('a'));
        const updated = await s.guaranteedUpdate(key('a'), (cur) => ({ ...cur, spec: { trustBundle: 'new' }, metadata: { ...cur.metadata, uid: 'x' } }));
        expect(rv(updated)).toBeGreaterThan(rv(created));
        expect(updated.spec).toEqual({ trustBundle: 'new' });
        expect(updated.metadata?.uid).toBe(created.metadata?.uid);
        expect(updated.metadata?.creationTimestamp).toBe(created.metadata?.creationTimestamp);
        expect(await s.get(key('a'))).toEqual(updated);
      });

      it('writes nothing when tryUpdate returns the same object', async () => {
        const { key } = freshResource();
        const created = await s.create(key('a'), bundle('a'));
        const before = await s.currentRevision();
        const same = await s.guaranteedUpdate(key('a'), (cur) => structuredClone(cur));
        expect(same).toEqual(created);
        expect(await s.currentRevision()).toBe(before);
      });

      it('propagates an error thrown by tryUpdate and writes nothing', async () => {
        const { key } = freshResource();
        await s.create(key('a'), bundle('a'));
        const before = await s.currentRevision();
        await expect(
          s.guaranteedUpdate(key('a'), () => {
            throw new Error('validation failed');
          }),
        ).rejects.toThrow('validation failed');
        expect(await s.currentRevision()).toBe(before);
      });

      it('creates through guaranteedUpdate with ignoreNotFound', async () => {
        const { key } = freshResource();
        const made = await s.guaranteedUpdate(key('n'), (cur) => ({ ...bundle('n'), ...cur, spec: { trustBundle: 'x' } }), { ignoreNotFound: true });
        expect(made.metadata?.uid).toBeTruthy();
        expect((await s.get(key('n'))).spec).toEqual({ trustBundle: 'x' });
      });

      it('deletes, returning the last state at the delete revision', async () => {
        const { key } = freshResource();
        const created = await s.create(key('a'), bundle('a'));
        const deleted = await s.delete(key('a'));
        expect(rv(deleted)).toBeGreaterThan(rv(created));
        expect(deleted.metadata?.uid).toBe(created.metadata?.uid);
        await expectStatus(s.get(key('a')), 404, 'NotFound');
        const again = await s.create(key('a'), bundle('a'));
        expect(again.metadata?.uid).not.toBe(created.metadata?.uid);
      });

      it('runs validateDeletion against the current object and aborts on its error', async () => {
        const { key } = freshResource();
        await s.create(key('a'), bundle('a'));
        const seen: string[] = [];
        await expect(
          s.delete(key('a'), {
            validateDeletion: (cur) => {
              seen.push(String(cur.spec && (cur.spec as { trustBundle: string }).trustBundle));
              throw new Error('in use');
            },
          }),
        ).rejects.toThrow('in use');
        expect(seen).toEqual(['pem-a']);
        await s.get(key('a'));
      });

      it('does not write on dryRun create, update or delete', async () => {
        const { key } = freshResource();
        const before = await s.currentRevision();
        const dry = await s.create(key('d'), bundle('d'), { dryRun: true });
        expect(dry.metadata?.uid).toBeTruthy();
        expect(dry.metadata?.resourceVersion).toBeUndefined();
        await expectStatus(s.get(key('d')), 404, 'NotFound');
        expect(await s.currentRevision()).toBe(before);
        const created = await s.create(key('d'), bundle('d'));
        await expectStatus(s.create(key('d'), bundle('d'), { dryRun: true }), 409, 'AlreadyExists');
        const mid = await s.currentRevision();
        const upd = await s.guaranteedUpdate(key('d'), (c) => ({ ...c, spec: { trustBundle: 'dry' } }), { dryRun: true });
        expect(upd.spec).toEqual({ trustBundle: 'dry' });
        expect(upd.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
        await s.delete(key('d'), { dryRun: true });
        expect(await s.get(key('d'))).toEqual(created);
        expect(await s.currentRevision()).toBe(mid);
      });

      it('answers get at a resourceVersion newer than the store with 504 Too large resource version', async () => {
        const { key } = freshResource();
        const created = await s.create(key('a'), bundle('a'));
        expect(await s.get(key('a'), { resourceVersion: created.metadata?.resourceVersion })).toEqual(created);
        expect(await s.get(key('a'), { resourceVersion: '0' })).toEqual(created);
        const cur = await s.currentRevision();
        const err = await expectStatus(s.get(key('a'), { resourceVersion: String(cur + 1000) }), 504, 'Timeout', /^Timeout: Too large resource version: \d+, current: \d+$/);
        expect(err.status.details?.retryAfterSeconds).toBe(1);
        await expectStatus(s.get(key('a'), { resourceVersion: 'abc' }), 400, 'BadRequest');
      });
    });

    describe('preconditions', () => {
      it('rejects a mismatched uid or resourceVersion with 409 Conflict', async () => {
        const { key, prefix } = freshResource();
        const resource = prefix.split('/')[2];
        const created = await s.create(key('a'), bundle('a'));
        const uid = created.metadata!.uid!;
        const err = await expectStatus(
          s.guaranteedUpdate(key('a'), (c) => ({ ...c, spec: {} }), { preconditions: { uid: 'other' } }),
          409,
          'Conflict',
        );
        expect(err.message).toBe(
          `Operation cannot be fulfilled on ${resource}.certificates.plat.io "a": StorageError: invalid object, Code: 4, ` +
            `Key: ${key('a')}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: other, UID in object meta: ${uid}`,
        );
        await expectStatus(
          s.delete(key('a'), { preconditions: { resourceVersion: '1' } }),
          409,
          'Conflict',
          new RegExp(`Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${created.metadata!.resourceVersion}$`),
        );
        const ok = await s.guaranteedUpdate(key('a'), (c) => ({ ...c, spec: { trustBundle: 'b' } }), {
          preconditions: { uid, resourceVersion: created.metadata!.resourceVersion },
        });
        expect(ok.spec).toEqual({ trustBundle: 'b' });
        await s.delete(key('a'), { preconditions: { uid, resourceVersion: ok.metadata!.resourceVersion } });
        await expectStatus(s.get(key('a')), 404, 'NotFound');
      });
    });

    describe('concurrency', () => {
      it('loses no update when many async callers run guaranteedUpdate at once', async () => {
        const { key } = freshResource();
        await s.create(key('c'), { ...bundle('c'), spec: { n: 0 } });
        const callers = 40;
        const results = await Promise.all(
          Array.from({ length: callers }, () =>
            s.guaranteedUpdate(key('c'), async (cur) => {
              await new Promise((r) => setImmediate(r));
              return { ...cur, spec: { n: (cur.spec as { n: number }).n + 1 } };
            }),
          ),
        );
        expect((await s.get(key('c'))).spec).toEqual({ n: callers });
        const revs = results.map(rv);
        expect(new Set(revs).size).toBe(callers);
        expect(results.map((r) => (r.spec as { n: number }).n).sort((a, b) => a - b)).toEqual(Array.from({ length: callers }, (_, i) => i + 1));
      });

      it('lets exactly one of many concurrent creates of one key win', async () => {
        const { key } = freshResource();
        const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => s.create(key('x'), bundle('x'))));
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        for (const o of outcomes) if (o.status === 'rejected') expect(isStatusError(o.reason, 'AlreadyExists')).toBe(true);
      });
    });

    describe('list', () => {
      it('lists in key order with the snapshot revision, filters with a predicate and counts', async () => {
        const { key, prefix } = freshResource();
        for (const n of ['c', 'a', 'b']) await s.create(key(n), bundle(n, { spec: { odd: n !== 'b' } }));
        const all = await s.list(prefix);
        expect(all.items.map((o) => o.metadata?.name)).toEqual(['a', 'b', 'c']);
        expect(Number(all.resourceVersion)).toBe(await s.currentRevision());
        expect(all.continue).toBeUndefined();
        const noSlash = await s.list(prefix.slice(0, -1));
        expect(noSlash.items).toHaveLength(3);
        const odd = await s.list(prefix, { predicate: (o) => (o.spec as { odd: boolean }).odd });
        expect(odd.items.map((o) => o.metadata?.name)).toEqual(['a', 'c']);
        expect(await s.count(prefix)).toBe(3);
      });

      it('keeps every page of a paginated list in one snapshot while writes go on', async () => {
        const { key, prefix } = freshResource();
        const names = Array.from({ length: 23 }, (_, i) => `obj-${String(i).padStart(3, '0')}`);
        for (const n of names) await s.create(key(n), bundle(n));
        const first = await s.list(prefix, { limit: 5 });
        expect(first.items).toHaveLength(5);
        expect(first.remainingItemCount).toBe(18);
        const snapshot = first.resourceVersion;
        const seen = [...first.items];
        let token = first.continue;
        let i = 0;
        while (token) {
          // Writes between pages: deletes, updates and creates must not show up.
          await s.delete(key(names[names.length - 1 - i]));
          await s.guaranteedUpdate(key(names[10 + i]), (c) => ({ ...c, spec: { changed: true } }));
          await s.create(key(`new-${i}`), bundle(`new-${i}`));
          const page = await s.list(prefix, { limit: 5, continue: token });
          expect(page.resourceVersion).toBe(snapshot);
          seen.push(...page.items);
          token = page.continue;
          i++;
        }
        expect(seen.map((o) => o.metadata?.name)).toEqual(names);
        expect(seen.every((o) => !(o.spec as { changed?: boolean }).changed)).toBe(true);
        expect(i).toBe(4);
      });

      it('fills pages with matching items when a predicate filters', async () => {
        const { key, prefix } = freshResource();
        for (let i = 0; i < 30; i++) await s.create(key(`p${String(i).padStart(2, '0')}`), bundle(`p${i}`, { spec: { keep: i % 3 === 0 } }));
        const pred = (o: StoredObject): boolean => (o.spec as { keep: boolean }).keep;
        const got: StoredObject[] = [];
        let token: string | undefined;
        let pages = 0;
        do {
          const page = await s.list(prefix, { limit: 4, continue: token, predicate: pred });
          expect(page.remainingItemCount).toBeUndefined();
          got.push(...page.items);
          token = page.continue;
          pages++;
        } while (token && pages < 20);
        expect(got).toHaveLength(10);
        expect(pages).toBeLessThanOrEqual(4);
      });

      it('reads an older snapshot with resourceVersionMatch Exact and rejects bad parameters', async () => {
        const { key, prefix } = freshResource();
        await s.create(key('a'), bundle('a'));
        const at = await s.currentRevision();
        await s.create(key('b'), bundle('b'));
        await s.delete(key('a'));
        const old = await s.list(prefix, { resourceVersion: String(at), resourceVersionMatch: 'Exact' });
        expect(old.items.map((o) => o.metadata?.name)).toEqual(['a']);
        expect(old.resourceVersion).toBe(String(at));
        // NotOlderThan: any state at or after `at`. A watch cache may answer before it has seen
        // the last writes (Kubernetes' does too), so check the answer against the exact state at
        // the revision it names rather than against the latest one.
        const newer = await s.list(prefix, { resourceVersion: String(at), resourceVersionMatch: 'NotOlderThan' });
        expect(Number(newer.resourceVersion)).toBeGreaterThanOrEqual(at);
        const sameRevision = await s.list(prefix, { resourceVersion: newer.resourceVersion, resourceVersionMatch: 'Exact' });
        expect(newer.items.map((o) => o.metadata?.name)).toEqual(sameRevision.items.map((o) => o.metadata?.name));
        // Once caught up, the deletion of a shows.
        const latest = await s.list(prefix, { resourceVersion: String(await s.currentRevision()), resourceVersionMatch: 'NotOlderThan' });
        expect(latest.items.map((o) => o.metadata?.name)).toEqual(['b']);
        const cur = await s.currentRevision();
        await expectStatus(s.list(prefix, { resourceVersion: String(cur + 500) }), 504, 'Timeout', /Too large resource version/);
        const page = await s.list(prefix, { limit: 1, resourceVersion: String(at) });
        expect(page.items.map((o) => o.metadata?.name)).toEqual(['a']);
        await expectStatus(
          s.list(prefix, { continue: 'x', resourceVersion: '5' }),
          400,
          'BadRequest',
          'specifying resource version is not allowed when using continue',
        );
        await expectStatus(s.list(prefix, { continue: 'bm90IGpzb24=' }), 400, 'BadRequest', /^invalid continue token: /);
      });
    });

    describe('watch', () => {
      it('delivers ADDED, MODIFIED and DELETED in revision order with prevObject', async () => {
        const { key, prefix } = freshResource();
        const other = freshResource();
        const w = await s.watch(prefix, { resourceVersion: String(await s.currentRevision()) });
        try {
          const a = await s.create(key('a'), bundle('a'));
          await s.create(other.key('z'), bundle('z'));
          const a2 = await s.guaranteedUpdate(key('a'), (c) => ({ ...c, spec: { v: 2 } }));
          const b = await s.create(key('b'), bundle('b'));
          const gone = await s.delete(key('a'));
          const events = await take(w, 4);
          expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'ADDED', 'DELETED']);
          expect(events.map((e) => rv(e.object))).toEqual([rv(a), rv(a2), rv(b), rv(gone)]);
          expect(events[1].prevObject).toEqual(a);
          expect(events[1].object).toEqual(a2);
          expect(events[3].prevObject).toEqual(a2);
          expect((events[3].object as StoredObject).spec).toEqual({ v: 2 });
        } finally {
          w.stop();
        }
      });

      it('resumes from a revision, replaying every later change', async () => {
        const { key, prefix } = freshResource();
        const a = await s.create(key('a'), bundle('a'));
        const a2 = await s.guaranteedUpdate(key('a'), (c) => ({ ...c, spec: { v: 2 } }));
        await s.delete(key('a'));
        await s.create(key('b'), bundle('b'));
        const w = await s.watch(prefix, { resourceVersion: a.metadata?.resourceVersion });
        try {
          const events = await take(w, 3);
          expect(events.map(brief)).toEqual([
            `MODIFIED a@${rv(a2)}`,
            `DELETED a@${rv(a2) + (events[1] ? rv(events[1].object) - rv(a2) : 0)}`,
            `ADDED b@${rv(events[2].object)}`,
          ]);
          expect(rv(events[1].object)).toBeGreaterThan(rv(a2));
          expect(rv(events[2].object)).toBeGreaterThan(rv(events[1].object));
        } finally {
          w.stop();
        }
      });

      it('sends the current objects as ADDED for a watch without resourceVersion', async () => {
        const { key, prefix } = freshResource();
        await s.create(key('a'), bundle('a'));
        await s.create(key('b'), bundle('b'));
        const w = await s.watch(prefix);
        try {
          const initial = await take(w, 2);
          expect(initial.map((e) => `${e.type} ${(e.object as StoredObject).metadata?.name}`)).toEqual(['ADDED a', 'ADDED b']);
          await s.create(key('c'), bundle('c'));
          const [next] = await take(w, 1);
          expect(next.type).toBe('ADDED');
          expect((next.object as StoredObject).metadata?.name).toBe('c');
        } finally {
          w.stop();
        }
      });

      it('sends initial events then a BOOKMARK annotated initial-events-end', async () => {
        const { key, prefix } = freshResource();
        await s.create(key('a'), bundle('a'));
        const last = await s.create(key('b'), bundle('b'));
        const w = await s.watch(prefix, { sendInitialEvents: true, allowWatchBookmarks: true, resourceVersion: '' });
        try {
          const events = await take(w, 3);
          expect(events.map((e) => e.type)).toEqual(['ADDED', 'ADDED', 'BOOKMARK']);
          const bm = events[2].object as StoredObject;
          expect(bm.metadata?.annotations).toEqual({ [initialEventsEndAnnotation]: 'true' });
          expect(rv(bm)).toBeGreaterThanOrEqual(rv(last));
          const c = await s.create(key('c'), bundle('c'));
          const [next] = await take(w, 1);
          expect(brief(next)).toBe(`ADDED c@${rv(c)}`);
        } finally {
          w.stop();
        }
      });

      it('starts at the current revision without initial events when sendInitialEvents is false', async () => {
        const { key, prefix } = freshResource();
        await s.create(key('a'), bundle('a'));
        const w = await s.watch(prefix, { sendInitialEvents: false });
        try {
          const b = await s.create(key('b'), bundle('b'));
          const [e] = await take(w, 1);
          expect(brief(e)).toBe(`ADDED b@${rv(b)}`);
        } finally {
          w.stop();
        }
      });

      it('sends periodic BOOKMARKs that carry a revision covering every delivered event', async () => {
        const { key, prefix } = freshResource();
        const w = await s.watch(prefix, {
          resourceVersion: String(await s.currentRevision()),
          allowWatchBookmarks: true,
          bookmarkIntervalMs: 40,
        });
        try {
          const a = await s.create(key('a'), bundle('a'));
          const events = await takeUntil(w, (e) => e.type === 'BOOKMARK' && rv(e.object) >= rv(a), 4000);
          const added = events.find((e) => e.type === 'ADDED');
          expect(added && rv(added.object)).toBe(rv(a));
          const bm = events[events.length - 1].object as StoredObject;
          expect(Object.keys(bm.metadata ?? {})).toEqual(['resourceVersion']);
        } finally {
          w.stop();
        }
      });

      it('sends a BOOKMARK 2 s before the deadline, long before the interval, with the revision the watch reached', async () => {
        const { key, prefix } = freshResource();
        const w = await s.watch(prefix, {
          resourceVersion: String(await s.currentRevision()),
          allowWatchBookmarks: true,
          bookmarkIntervalMs: 60_000,
          deadline: Date.now() + 2000 + 400,
          // Writes outside the selection still move the bookmark's revision.
          predicate: (o) => o.metadata?.name === 'watched',
        });
        try {
          const other = await s.create(key('other'), bundle('other'));
          const started = Date.now();
          const [bm] = await take(w, 1, 3000);
          expect(bm.type).toBe('BOOKMARK');
          expect(rv(bm.object)).toBeGreaterThanOrEqual(rv(other));
          expect(Date.now() - started).toBeLessThan(2000);
        } finally {
          w.stop();
        }
      });

      it('filters with a predicate: an object leaving the selection is DELETED, entering is ADDED', async () => {
        const { key, prefix } = freshResource();
        const w = await s.watch(prefix, {
          resourceVersion: String(await s.currentRevision()),
          predicate: (o) => (o.metadata?.labels as Record<string, string> | undefined)?.app === 'test',
        });
        try {
          const a = await s.create(key('a'), bundle('a'));
          await s.create(key('hidden'), { ...bundle('hidden'), metadata: { name: 'hidden', labels: { app: 'other' } } });
          const out = await s.guaranteedUpdate(key('a'), (c) => ({ ...c, metadata: { ...c.metadata, labels: { app: 'other' } } }));
          const back = await s.guaranteedUpdate(key('a'), (c) => ({ ...c, metadata: { ...c.metadata, labels: { app: 'test' } } }));
          const events = await take(w, 3);
          expect(events.map((e) => e.type)).toEqual(['ADDED', 'DELETED', 'ADDED']);
          expect(events.map((e) => rv(e.object))).toEqual([rv(a), rv(out), rv(back)]);
          expect(events[1].prevObject).toEqual(a);
        } finally {
          w.stop();
        }
      });

      it('ends the iterator on stop', async () => {
        const { prefix } = freshResource();
        const w = await s.watch(prefix, { sendInitialEvents: false });
        const it = w[Symbol.asyncIterator]();
        const pending = it.next();
        w.stop();
        w.stop();
        expect((await pending).done).toBe(true);
      });

      it('ends the watch when its AbortSignal fires', async () => {
        const { prefix } = freshResource();
        const ac = new AbortController();
        const w = await s.watch(prefix, { sendInitialEvents: false, signal: ac.signal });
        const pending = w[Symbol.asyncIterator]().next();
        ac.abort();
        expect((await pending).done).toBe(true);
      });
    });

    describe('compaction', () => {
      it('answers 410 Expired below the compaction point and keeps serving above it', async () => {
        const { key, prefix } = freshResource();
        const a = await s.create(key('a'), bundle('a'));
        await s.guaranteedUpdate(key('a'), (c) => ({ ...c, spec: { v: 2 } }));
        for (let i = 0; i < 6; i++) await s.create(key(`p${i}`), bundle(`p${i}`));
        const first = await s.list(prefix, { limit: 2 });
        const b = await s.create(key('b'), bundle('b'));
        await s.compact(rv(b));

        await expectStatus(
          s.watch(prefix, { resourceVersion: a.metadata?.resourceVersion }),
          410,
          'Expired',
          new RegExp(`^too old resource version: ${rv(a)} \\(\\d+\\)$`),
        );
        await expectStatus(
          s.list(prefix, { resourceVersion: a.metadata?.resourceVersion, resourceVersionMatch: 'Exact' }),
          410,
          'Expired',
        );
        const err = await expectStatus(s.list(prefix, { limit: 2, continue: first.continue }), 410, 'Expired', /^The provided continue parameter is too old to display a consistent list result\. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results\./);
        const fresh = err.status.metadata?.continue;
        expect(fresh).toBeTruthy();
        const rest = await s.list(prefix, { continue: fresh });
        expect(first.items.map((o) => o.metadata?.name)).toEqual(['a', 'p0']);
        expect(rest.items.map((o) => o.metadata?.name)).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);

        // The state at the compaction revision and everything after it are still there.
        expect((await s.get(key('a'))).spec).toEqual({ v: 2 });
        const w = await s.watch(prefix, { resourceVersion: b.metadata?.resourceVersion });
        try {
          const c = await s.create(key('c'), bundle('c'));
          const [e] = await take(w, 1);
          expect(brief(e)).toBe(`ADDED c@${rv(c)}`);
        } finally {
          w.stop();
        }
      });
    });
  });
}
