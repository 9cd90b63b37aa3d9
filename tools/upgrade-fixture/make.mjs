// Makes the upgrade fixture (tools/upgrade-fixture/README.md): the data dir and etcd contents
// that the apiserver of the checked-out commit writes, holding a few objects of every kind it
// serves, for apps/apiserver/src/upgrade.e2e.test.ts to start a later apiserver on.
//
//   node tools/upgrade-fixture/make.mjs [OUT_DIR]   (default: tools/upgrade-fixture/<short commit>)
//
// Run it on the commit whose stored format the fixture stands for (a release), with a clean
// tree: it records `git rev-parse HEAD` in OUT_DIR/expected.json. Needs openssl and /usr/bin/etcd.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { Agent, request } from 'undici';
import { adminCredentials, startApiServer } from '../e2e/apiserver-process.mjs';
import { bundleApp } from '../e2e/bundle-app.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, encoding: 'utf8' }).trim() !== '';
const out = path.resolve(process.argv[2] ?? path.join(root, 'tools/upgrade-fixture', commit.slice(0, 7)));
const etcdBinary = process.env.PLAT_ETCD_BINARY ?? '/usr/bin/etcd';
/** The etcd prefix the fixture is written under: the apiserver's default (--etcd-prefix). */
const etcdPrefix = '/registry';

function tmp(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A self-signed CA certificate (PEM) to publish as a trust anchor; its key is thrown away. */
function caCertificate(cn) {
  const dir = tmp('plat-fixture-ca-');
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '3650',
      '-subj', `/CN=${cn}`, '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
      '-keyout', path.join(dir, 'k.pem'), '-out', path.join(dir, 'c.pem'),
    ], { stdio: 'ignore' });
    return fs.readFileSync(path.join(dir, 'c.pem'), 'utf8');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const ctb = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';
const anchors = { a: caCertificate('fixture-root-a'), b: caCertificate('fixture-root-b'), c: caCertificate('fixture-root-c') };

/**
 * What the fixture holds besides the bootstrap policy, each written as a user would: POSTed, or
 * server-side applied (so that managedFields record an Apply manager), in the versions and group
 * names clients of this release use.
 */
const writes = [
  { method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { team: 'a' } } } },
  { method: 'POST', path: ctb, body: { apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name: 'plain-anchors' }, spec: { trustBundle: anchors.a } } },
  {
    method: 'POST',
    path: ctb,
    body: {
      apiVersion: 'certificates.plat.io/v1alpha1',
      kind: 'ClusterTrustBundle',
      metadata: { name: 'example.com:mesh:2026', labels: { 'example.com/mesh': 'prod', rotation: '2026' }, annotations: { 'example.com/owner': 'team-a' } },
      spec: { signerName: 'example.com/mesh', trustBundle: anchors.a + anchors.b },
    },
  },
  {
    method: 'POST',
    path: ctb,
    body: { apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name: 'example.com:mesh:2027', labels: { 'example.com/mesh': 'prod', rotation: '2027' } }, spec: { signerName: 'example.com/mesh', trustBundle: anchors.c } },
  },
  {
    method: 'PATCH',
    path: `${ctb}/applied-anchors?fieldManager=fixture-applier`,
    contentType: 'application/apply-patch+yaml',
    body: { apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name: 'applied-anchors', labels: { managed: 'by-apply' } }, spec: { trustBundle: anchors.b } },
  },
  {
    method: 'POST',
    path: '/apis/rbac.authorization.plat.io/v1/clusterroles',
    body: {
      apiVersion: 'rbac.authorization.plat.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'fixture:bundle-reader', labels: { fixture: 'upgrade' } },
      rules: [{ apiGroups: ['certificates.plat.io'], resources: ['clustertrustbundles'], verbs: ['get', 'list', 'watch'] }],
    },
  },
  {
    method: 'POST',
    path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    body: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'fixture:alice-reads-bundles' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'fixture:bundle-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
    },
  },
];

/** The group, version, resource and name a write addressed, for the test to read the object back. */
function describeWrite(w) {
  const segments = w.path.split('?')[0].split('/').slice(1);
  const [group, version, resource] = segments[0] === 'api' ? ['', segments[1], segments[2]] : segments.slice(1, 4);
  return { group, version, resource, name: w.body.metadata.name };
}

async function call(server, dispatcher, method, p, body, contentType = 'application/json') {
  const res = await request(`${server.url}${p}`, {
    method,
    dispatcher,
    // The user agent's first word names the field manager of the POSTs, as client-go's does.
    headers: { 'user-agent': 'upgrade-fixture/v0.1.0', accept: 'application/json', ...(body ? { 'content-type': contentType } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.body.json();
  if (res.statusCode >= 300) throw new Error(`${method} ${p}: ${res.statusCode} ${JSON.stringify(json)}`);
  return json;
}

/** Writes the objects through the running server and returns what it answers for each on a GET. */
async function populate(server) {
  const dispatcher = new Agent({ connect: adminCredentials(server.kubeconfig) });
  try {
    const objects = [];
    for (const w of writes) {
      await call(server, dispatcher, w.method, w.path, w.body, w.contentType);
      const d = describeWrite(w);
      const item = d.group === '' ? `/api/${d.version}/${d.resource}/${d.name}` : `/apis/${d.group}/${d.version}/${d.resource}/${d.name}`;
      objects.push({ ...d, object: await call(server, dispatcher, 'GET', item) });
    }
    // Every object the server keeps, bootstrap policy included, by resource: name -> uid.
    const all = {};
    for (const [group, version, resource] of [
      ['', 'v1', 'namespaces'],
      ['certificates.plat.io', 'v1alpha1', 'clustertrustbundles'],
      ['rbac.authorization.plat.io', 'v1', 'clusterroles'],
      ['rbac.authorization.plat.io', 'v1', 'clusterrolebindings'],
    ]) {
      const list = await call(server, dispatcher, 'GET', group === '' ? `/api/${version}/${resource}` : `/apis/${group}/${version}/${resource}`);
      all[`${resource}${group ? `.${group}` : ''}`] = Object.fromEntries(list.items.map((o) => [o.metadata.name, o.metadata.uid]));
    }
    return { objects, all };
  } finally {
    await dispatcher.close();
  }
}

async function startEtcd() {
  const dataDir = tmp('plat-fixture-etcd-');
  const port = 20000 + Math.floor(Math.random() * 20000);
  const url = `http://127.0.0.1:${port}`;
  const peer = `http://127.0.0.1:${port + 1}`;
  const { spawn } = await import('node:child_process');
  const proc = spawn(etcdBinary, ['--name', 'fixture', '--data-dir', dataDir, '--listen-client-urls', url, '--advertise-client-urls', url,
    '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer, '--initial-cluster', `fixture=${peer}`, '--log-level', 'error'], { stdio: 'ignore' });
  for (let i = 0; i < 150; i++) {
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    async stop() {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Every key under the prefix, as etcd's JSON gateway returns them, decoded (values are the stored JSON). */
async function dumpEtcd(url) {
  const b64 = (s) => Buffer.from(s).toString('base64');
  const res = await fetch(`${url}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: b64(`${etcdPrefix}/`), range_end: b64(`${etcdPrefix}0`) }) });
  const { kvs = [] } = await res.json();
  return kvs.map((kv) => ({ key: Buffer.from(kv.key, 'base64').toString('utf8'), value: Buffer.from(kv.value, 'base64').toString('utf8') }));
}

async function main() {
  if (dirty) process.stderr.write('warning: the tree has uncommitted changes; the fixture records HEAD all the same\n');
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const bundle = await bundleApp('apiserver');

  // (a) SQLite, the embedded default: a data dir as `npm start` leaves it.
  const sqliteDir = path.join(out, 'sqlite');
  let server = await startApiServer({ bundle, dataDir: sqliteDir });
  const sqlite = await populate(server);
  if ((await server.stop('SIGTERM')) !== 0) throw new Error(`apiserver (sqlite) did not stop cleanly:\n${server.stderr()}`);
  for (const file of ['storage.db', 'storage.lock']) {
    const db = new Database(path.join(sqliteDir, file));
    db.pragma('journal_mode = DELETE');
    db.exec('VACUUM');
    db.close();
  }

  // (b) etcd: the keys under the prefix, dumped; the PKI and admin.conf stay in --data-dir.
  const etcdDir = path.join(out, 'etcd');
  const etcd = await startEtcd();
  let etcdResult;
  try {
    server = await startApiServer({ bundle, dataDir: etcdDir, args: ['--storage-backend=etcd3', `--etcd-servers=${etcd.url}`, `--etcd-prefix=${etcdPrefix}`] });
    etcdResult = await populate(server);
    if ((await server.stop('SIGTERM')) !== 0) throw new Error(`apiserver (etcd) did not stop cleanly:\n${server.stderr()}`);
    const kvs = await dumpEtcd(etcd.url);
    fs.writeFileSync(path.join(out, 'etcd-kv.json'), `${JSON.stringify({ prefix: etcdPrefix, kvs }, null, 1)}\n`);
  } finally {
    await etcd.stop();
  }

  const version = JSON.parse(fs.readFileSync(path.join(root, 'apps/apiserver/package.json'), 'utf8')).version;
  const expected = { commit, apiserverVersion: version, etcdPrefix, sqlite, etcd: etcdResult };
  fs.writeFileSync(path.join(out, 'expected.json'), `${JSON.stringify(expected, null, 1)}\n`);
  process.stdout.write(`fixture of ${commit} written to ${path.relative(root, out)}\n`);
}

await main();
