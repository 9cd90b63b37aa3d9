import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Agent, request } from 'undici';
import { TestEtcd, hasEtcd } from '@plat/storage/testing';
import { issueClientCertificate } from '@plat/x509';
import { adminCredentials, bundlePath, startApiServer, tempDir, type Credentials, type StartedApiServer } from '../test/apiserver-process.js';

// Upgrade without loss (docs/operations.md, "Upgrade"): today's apiserver started on a data dir
// and an etcd prefix that an earlier release wrote (tools/upgrade-fixture) serves every object in
// every version its resource is served in, with the same admin kubeconfig and no manual step.
// Kubernetes keeps this promise the same way: objects stay in the stored version until rewritten
// (storage version migration), and every served version is converted from it on read.

const fixtureRoot = path.resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '../../../tools/upgrade-fixture');
const fixtures = fs
  .readdirSync(fixtureRoot, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

interface WrittenObject {
  group: string;
  version: string;
  resource: string;
  name: string;
  object: ApiObject;
}

interface ApiObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    uid: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    managedFields?: { manager: string; operation: string; apiVersion: string }[];
  };
  [field: string]: unknown;
}

interface BackendContent {
  objects: WrittenObject[];
  /** `resource[.group]` -> name -> uid, bootstrap policy included. */
  all: Record<string, Record<string, string>>;
}

interface Expected {
  commit: string;
  etcdPrefix: string;
  sqlite: BackendContent;
  etcd: BackendContent;
}

/** The data dir of a backend, copied out of the fixture so that the run cannot change it. */
function copyDataDir(fixture: string, backend: 'sqlite' | 'etcd'): string {
  const dir = tempDir(`plat-upgrade-${backend}-`);
  fs.cpSync(path.join(fixtureRoot, fixture, backend), dir, { recursive: true });
  // Git does not keep modes: give the keys back the 0600 the server wrote them with.
  for (const f of fs.readdirSync(path.join(dir, 'pki'))) if (f.endsWith('.key')) fs.chmodSync(path.join(dir, 'pki', f), 0o600);
  return dir;
}

/** Puts the fixture's keys into a (fresh) etcd, values byte for byte. */
async function loadEtcd(url: string, fixture: string): Promise<number> {
  const dump = JSON.parse(fs.readFileSync(path.join(fixtureRoot, fixture, 'etcd-kv.json'), 'utf8')) as { kvs: { key: string; value: string }[] };
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  for (const kv of dump.kvs) {
    const res = await fetch(`${url}/v3/kv/put`, { method: 'POST', body: JSON.stringify({ key: b64(kv.key), value: b64(kv.value) }) });
    if (!res.ok) throw new Error(`etcd put ${kv.key}: ${res.status} ${await res.text()}`);
  }
  return dump.kvs.length;
}

class Client {
  private readonly dispatcher: Agent;
  constructor(
    private readonly base: string,
    connect: Credentials,
  ) {
    this.dispatcher = new Agent({ connect });
  }
  async get(p: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await request(`${this.base}${p}`, { dispatcher: this.dispatcher, headers: { accept: 'application/json' } });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
  }
  async send(method: 'PATCH' | 'DELETE', p: string, body?: unknown, contentType = 'application/merge-patch+json'): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await request(`${this.base}${p}`, {
      method,
      dispatcher: this.dispatcher,
      headers: { accept: 'application/json', ...(body ? { 'content-type': contentType } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
  }
  /** The objects of a watch from resourceVersion 0 (its initial ADDED events), by name, once `names` all came. */
  async watchFromZero(p: string, names: string[], timeoutMs = 10_000): Promise<Map<string, ApiObject>> {
    const seen = new Map<string, ApiObject>();
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), timeoutMs);
    try {
      const res = await request(`${this.base}${p}?watch=1&resourceVersion=0`, { dispatcher: this.dispatcher, signal: ac.signal });
      expect(res.statusCode).toBe(200);
      let buffered = '';
      for await (const chunk of res.body) {
        buffered += (chunk as Buffer).toString('utf8');
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const event = JSON.parse(buffered.slice(0, nl)) as { type: string; object: ApiObject };
          buffered = buffered.slice(nl + 1);
          expect(event.type).toBe('ADDED');
          seen.set(event.object.metadata.name, event.object);
        }
        if (names.every((n) => seen.has(n))) break;
      }
    } catch (err) {
      if (!ac.signal.aborted) throw err;
    } finally {
      clearTimeout(timer);
      ac.abort();
    }
    return seen;
  }
  /** Starts a watch from `resourceVersion` and collects its events until `stop()`. */
  async watchFrom(p: string, resourceVersion: string): Promise<{ events: { type: string; object: ApiObject }[]; stop(): void }> {
    const ac = new AbortController();
    const events: { type: string; object: ApiObject }[] = [];
    const res = await request(`${this.base}${p}?watch=1&resourceVersion=${resourceVersion}`, { dispatcher: this.dispatcher, signal: ac.signal });
    expect(res.statusCode).toBe(200);
    void (async () => {
      let buffered = '';
      for await (const chunk of res.body) {
        buffered += (chunk as Buffer).toString('utf8');
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          events.push(JSON.parse(buffered.slice(0, nl)) as { type: string; object: ApiObject });
          buffered = buffered.slice(nl + 1);
        }
      }
    })().catch(() => undefined);
    return { events, stop: () => ac.abort() };
  }
  close(): Promise<void> {
    return this.dispatcher.close();
  }
}

function collectionPath(group: string, version: string, resource: string): string {
  return group === '' ? `/api/${version}/${resource}` : `/apis/${group}/${version}/${resource}`;
}

/**
 * Every group version that serves `resource` of `group` from the discovery documents: the group
 * itself and the other name it answers to (`certificates.k8s.io` for `certificates.plat.io`, and
 * the other way round), each in every version listed.
 */
async function servedVersions(client: Client, group: string, resource: string): Promise<{ group: string; version: string }[]> {
  if (group === '') {
    const core = await client.get('/api');
    return (core.body.versions as string[]).map((version) => ({ group: '', version }));
  }
  const groups = (await client.get('/apis')).body.groups as { name: string; versions: { version: string }[] }[];
  const aliases = new Set([group, group.replace(/\.plat\.io$/, '.k8s.io'), group.replace(/\.k8s\.io$/, '.plat.io')]);
  const served: { group: string; version: string }[] = [];
  for (const g of groups.filter((x) => aliases.has(x.name))) {
    for (const { version } of g.versions) {
      const list = await client.get(`/apis/${g.name}/${version}`);
      const resources = (list.body.resources as { name: string }[]).map((r) => r.name);
      if (resources.includes(resource)) served.push({ group: g.name, version });
    }
  }
  return served;
}

/**
 * The fields a kind keeps its content in (everything but the metadata a write changes), with the
 * group names an object carries (roleRef, subjects, managedFields) in their plat spelling: a
 * resource served under both names shows each client the name it asked with.
 */
function content(obj: ApiObject): unknown {
  const { apiVersion: _v, kind: _k, metadata, ...rest } = obj;
  const managers = (metadata.managedFields ?? []).map((f) => ({ manager: f.manager, operation: f.operation, apiVersion: f.apiVersion }));
  const fields = { name: metadata.name, uid: metadata.uid, labels: metadata.labels, annotations: metadata.annotations, managers, ...rest };
  return JSON.parse(JSON.stringify(fields).replace(/"((?:rbac\.authorization|certificates)\.)k8s\.io(\/[^"]*)?"/g, '"$1plat.io$2"'));
}

/** Every object the fixture wrote, read in every served version of its resource: the same content, kind, managers. */
async function readsEveryObject(admin: Client, want: BackendContent): Promise<void> {
  for (const w of want.objects) {
    const served = await servedVersions(admin, w.group, w.resource);
    expect(served).toContainEqual({ group: w.group, version: w.version });
    for (const { group, version } of served) {
      const res = await admin.get(`${collectionPath(group, version, w.resource)}/${encodeURIComponent(w.name)}`);
      expect({ at: `${group}/${version}`, status: res.status }).toEqual({ at: `${group}/${version}`, status: 200 });
      const got = res.body as unknown as ApiObject;
      expect(got.apiVersion).toBe(group === '' ? version : `${group}/${version}`);
      expect(got.kind).toBe(w.object.kind);
      // Content, and managedFields with each manager's entry and the version it wrote in.
      expect(content(got)).toEqual(content(w.object));
    }
  }
}

/** Runs `apiserver migrate-storage` (the bundle) with `args`; its exit code and output. */
function migrateStorage(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bundlePath(), 'migrate-storage', ...args], { env: { ...process.env, NODE_OPTIONS: '' }, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** `resource: scanned N, rewritten M` lines of migrate-storage, by resource. */
function migrationLines(stdout: string): Map<string, { scanned: number; rewritten: number }> {
  return new Map([...stdout.matchAll(/^(\S+): scanned (\d+), rewritten (\d+)$/gm)].map((m) => [m[1], { scanned: Number(m[2]), rewritten: Number(m[3]) }]));
}

/** The admin credentials the fixture's admin.conf holds, or undefined once its certificate has expired. */
function fixtureAdmin(dir: string): Credentials | undefined {
  const creds = adminCredentials(path.join(dir, 'admin.conf'));
  return new Date(new X509Certificate(creds.cert).validTo).getTime() > Date.now() + 60_000 ? creds : undefined;
}

for (const fixture of fixtures) {
  const expected = JSON.parse(fs.readFileSync(path.join(fixtureRoot, fixture, 'expected.json'), 'utf8')) as Expected;
  for (const backend of ['sqlite', 'etcd'] as const) {
    const run = backend === 'etcd' && !hasEtcd ? describe.skip : describe;
    if (backend === 'etcd' && !hasEtcd) process.stderr.write('upgrade.e2e: /usr/bin/etcd is missing (apt-get install etcd-server), the etcd upgrade is skipped\n');

    run(`upgrade from ${fixture} (commit ${expected.commit.slice(0, 12)}), ${backend}`, () => {
      const want = expected[backend];
      let dataDir: string;
      let etcd: TestEtcd | undefined;
      let server: StartedApiServer;
      let admin: Client;
      let args: string[];

      beforeAll(async () => {
        dataDir = copyDataDir(fixture, backend);
        args = [];
        if (backend === 'etcd') {
          etcd = new TestEtcd();
          await etcd.start();
          await loadEtcd(etcd.url, fixture);
          args = ['--storage-backend=etcd3', `--etcd-servers=${etcd.url}`, `--etcd-prefix=${expected.etcdPrefix}`];
        }
        server = await startApiServer({ dataDir, args });
        admin = new Client(server.url, adminCredentials(server.kubeconfig));
      });
      afterAll(async () => {
        await admin?.close();
        await server?.stop('SIGKILL');
        await etcd?.destroy();
        if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
      });

      it('keeps the development PKI and admin.conf: the fixture admin credentials work as they are', async () => {
        const before = adminCredentials(path.join(fixtureRoot, fixture, backend, 'admin.conf'));
        const after = adminCredentials(server.kubeconfig);
        expect(after.ca).toBe(before.ca);
        expect(fs.readFileSync(path.join(dataDir, 'pki', 'ca.key'), 'utf8')).toBe(fs.readFileSync(path.join(fixtureRoot, fixture, backend, 'pki', 'ca.key'), 'utf8'));
        const old = fixtureAdmin(path.join(fixtureRoot, fixture, backend));
        if (!old) {
          process.stderr.write(`upgrade.e2e: the admin certificate of fixture ${fixture} has expired; the server reissued it from the same CA\n`);
          return;
        }
        expect(after.cert).toBe(before.cert);
        const client = new Client(server.url, old);
        try {
          const res = await client.get('/apis/certificates.plat.io/v1alpha1/clustertrustbundles');
          expect(res.status).toBe(200);
        } finally {
          await client.close();
        }
      });

      it('reads every object the fixture wrote in every served version of its resource', async () => {
        await readsEveryObject(admin, want);
        const applied = want.objects.find((w) => w.name === 'applied-anchors');
        expect(applied?.object.metadata.managedFields).toContainEqual(expect.objectContaining({ manager: 'fixture-applier', operation: 'Apply' }));
      });

      it('lists and watches (from resourceVersion 0) every object the fixture held, in every served version, with the same uids', async () => {
        for (const [key, byName] of Object.entries(want.all)) {
          const [resource, ...groupParts] = key.split('.');
          const group = groupParts.join('.');
          const names = Object.keys(byName);
          for (const { group: g, version } of await servedVersions(admin, group, resource)) {
            const list = await admin.get(collectionPath(g, version, resource));
            expect(list.status).toBe(200);
            const listed = new Map((list.body.items as ApiObject[]).map((o) => [o.metadata.name, o.metadata.uid]));
            for (const name of names) expect({ at: `${g}/${version}`, name, uid: listed.get(name) }).toEqual({ at: `${g}/${version}`, name, uid: byName[name] });
            const watched = await admin.watchFromZero(collectionPath(g, version, resource), names);
            for (const name of names) expect({ at: `${g}/${version}`, name, uid: watched.get(name)?.metadata.uid }).toEqual({ at: `${g}/${version}`, name, uid: byName[name] });
          }
        }
      });

      it("still authorizes the fixture's ClusterRoleBinding: alice reads bundles and nothing more", async () => {
        const pki = path.join(dataDir, 'pki');
        const ca = { certPem: fs.readFileSync(path.join(pki, 'ca.crt'), 'utf8'), keyPem: fs.readFileSync(path.join(pki, 'ca.key'), 'utf8') };
        const alice = await issueClientCertificate(ca, { commonName: 'alice', validityDays: 1 });
        const client = new Client(server.url, { ca: ca.certPem, cert: alice.certPem, key: alice.keyPem });
        try {
          const bundles = want.objects.filter((w) => w.resource === 'clustertrustbundles');
          for (const { group, version } of await servedVersions(admin, 'certificates.plat.io', 'clustertrustbundles')) {
            const list = await client.get(collectionPath(group, version, 'clustertrustbundles'));
            expect({ at: `${group}/${version}`, status: list.status }).toEqual({ at: `${group}/${version}`, status: 200 });
            expect((list.body.items as ApiObject[]).map((o) => o.metadata.name)).toEqual(expect.arrayContaining(bundles.map((b) => b.name)));
          }
          const del = await client.send('DELETE', `/apis/certificates.plat.io/v1alpha1/clustertrustbundles/plain-anchors`);
          expect(del.status).toBe(403);
          expect((await client.get('/apis/rbac.authorization.plat.io/v1/clusterroles')).status).toBe(403);
        } finally {
          await client.close();
        }
      });

      it('migrate-storage rewrites what is not in the storage version, then nothing; every object still reads the same', async () => {
        const storageArgs = backend === 'sqlite' ? [`--data-dir=${dataDir}`] : args;
        if (backend === 'sqlite') {
          // One process owns a SQLite data dir: the running server's storage.lock refuses the migration.
          const refused = await migrateStorage(storageArgs);
          expect(refused.code).toBe(1);
          expect(refused.stderr).toMatch(/^Error: cannot open storage \(--storage-backend=sqlite\): storage data dir .* is in use by another process\n$/);
          await admin.close();
          expect(await server.stop('SIGTERM')).toBe(0);
        }
        // etcd: the migration may run beside the server (every rewrite is a compare-and-swap in
        // etcd), whose watchers see each rewritten object MODIFIED, as after any update.
        const ctbs = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';
        const listedAt = async () => ((await admin.get(ctbs)).body.metadata as { resourceVersion: string }).resourceVersion;
        const watch = backend === 'etcd' ? await admin.watchFrom(ctbs, await listedAt()) : undefined;
        const first = await migrateStorage(storageArgs);
        expect(first).toMatchObject({ code: 0, stderr: '' });
        const lines = migrationLines(first.stdout);
        for (const [resource, byName] of Object.entries(want.all)) {
          expect(lines.get(resource)?.scanned).toBeGreaterThanOrEqual(Object.keys(byName).length);
        }
        if (watch) {
          const rewritten = lines.get('clustertrustbundles.certificates.plat.io')!.rewritten;
          const deadline = Date.now() + 10_000;
          while (watch.events.length < rewritten && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
          watch.stop();
          expect(watch.events.map((e) => e.type)).toEqual(Array(rewritten).fill('MODIFIED'));
        }
        const second = await migrateStorage(storageArgs);
        expect(second).toMatchObject({ code: 0, stderr: '' });
        expect([...migrationLines(second.stdout).values()].every((r) => r.rewritten === 0)).toBe(true);
        expect(second.stdout).toMatch(/^Nothing to rewrite: all \d+ objects are stored in the storage version of their resource$/m);

        if (backend === 'sqlite') {
          server = await startApiServer({ dataDir, args });
          admin = new Client(server.url, adminCredentials(server.kubeconfig));
        }
        await readsEveryObject(admin, want);
      });

      it('updates an object written by the earlier release, and finds everything again after a restart', async () => {
        const p = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/example.com:mesh:2027';
        const before = (await admin.get(p)).body as unknown as ApiObject;
        const patched = await admin.send('PATCH', p, { metadata: { labels: { upgraded: 'yes' } } });
        expect(patched.status).toBe(200);
        const after = patched.body as unknown as ApiObject;
        expect(BigInt(after.metadata.resourceVersion!)).toBeGreaterThan(BigInt(before.metadata.resourceVersion!));
        expect(after.metadata.uid).toBe(before.metadata.uid);
        expect(after.spec).toEqual(before.spec);

        await admin.close();
        expect(await server.stop('SIGTERM')).toBe(0);
        server = await startApiServer({ dataDir, args });
        admin = new Client(server.url, adminCredentials(server.kubeconfig));
        for (const w of want.objects) {
          const res = await admin.get(`${collectionPath(w.group, w.version, w.resource)}/${encodeURIComponent(w.name)}`);
          expect(res.status).toBe(200);
          expect((res.body as unknown as ApiObject).metadata.uid).toBe(w.object.metadata.uid);
        }
      });
    });
  }
}

describe('apiserver migrate-storage flags', () => {
  it('refuses a data dir without storage (it would create one) and etcd without servers, saying which flag', async () => {
    const empty = tempDir('plat-migrate-empty-');
    try {
      const r = await migrateStorage([`--data-dir=${empty}`]);
      expect(r).toEqual({ code: 1, stdout: '', stderr: `Error: no SQLite storage in ${empty} (storage.db is missing): pass the server's --data-dir\n` });
      expect(fs.readdirSync(empty)).toEqual([]);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
    expect(await migrateStorage(['--storage-backend=etcd3'])).toEqual({ code: 1, stdout: '', stderr: 'Error: --etcd-servers must be specified\n' });
    expect((await migrateStorage(['--storage-backend=memory'])).stderr).toBe("Error: --storage-backend invalid for a storage migration, allowed values: 'sqlite', 'etcd3'; got \"memory\"\n");
  });
});
