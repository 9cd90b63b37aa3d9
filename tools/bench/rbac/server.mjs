#!/usr/bin/env node
// GET throughput under RBAC with 1,000 ClusterRoles and 1,000 ClusterRoleBindings in storage, as a
// ratio of the same GET under AlwaysAllow, measured in one run (issue 20).
//
//   node tools/bench/rbac/server.mjs [--duration 3] [--rounds 5] [--connections 16] [--json]
//
// It bundles apps/apiserver with esbuild (as the end-to-end tests do) and starts ONE server
// (--storage-backend=memory, --token-auth-file with the bearer token of `user-123`, groups
// `team-23`) with an --authorization-config file. It seeds 1,000 ClusterRoles (role-i: a resource
// rule in its own API group, a non-resource rule) and 1,000 ClusterRoleBindings (binding-i: role-i
// to user-i and group team-<i mod 50>), so the RBAC authorizer finds 20 bindings for user-123 (its
// own and its team's), none of which allows the GET: the bootstrap binding of
// system:clustertrustbundles-reader to system:authenticated does. Then, in slices whose order
// rotates each round, autocannon GETs one ClusterTrustBundle as user-123 (HTTP/1.1 keep-alive)
// with the configuration file saying
//   (a) AlwaysAllow — the baseline: the same server, storage, token and pinning, no RBAC;
//   (b) RBAC        — the same file with `type: RBAC` (the server reloads it; the script waits
//                     until a SelfSubjectAccessReview shows the switch).
// Figures: requests per second and per server CPU second (from /proc), each round's ratio (b)/(a),
// median [min–max] over the rounds. Target: (b) >= 0.9 of (a).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { adminCredentials, benchFlags, buildApiServerBundle, cannonWith, createBenchBundle, measuredSlice, mergeSlices, startApiServer } from '../lib/apiserver-harness.mjs';

const { flag, has } = benchFlags();
const duration = Number(flag('duration', '3'));
const rounds = Math.max(5, Number(flag('rounds', '5')));
const connections = Number(flag('connections', '16'));
const cannon = cannonWith({ connections, duration });
const asJson = has('--json');
const log = (...m) => {
  if (!asJson) console.error(...m);
};
const token = 'bench-user-123-token';
const rbacPath = '/apis/rbac.authorization.plat.io/v1';

const authzConfig = (type) => `apiVersion: apiserver.plat.io/v1beta1\nkind: AuthorizationConfiguration\nauthorizers:\n- type: ${type}\n  name: ${type.toLowerCase()}\n`;

/** Replaces the file at once (write + rename), so the server's reloader never reads half of it. */
function replaceFile(file, content) {
  fs.writeFileSync(`${file}.tmp`, content);
  fs.renameSync(`${file}.tmp`, file);
}

async function post(url, dispatcher, p, body) {
  const res = await request(`${url}${p}`, { method: 'POST', dispatcher, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.body.text();
  if (res.statusCode !== 201) throw new Error(`POST ${p}: ${res.statusCode} ${text}`);
}

/** 1,000 ClusterRoles and 1,000 ClusterRoleBindings, 50 requests at a time. */
async function seedPolicy(url, dispatcher) {
  for (let i = 0; i < 1000; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, async (_, j) => {
        const n = i + j;
        await post(url, dispatcher, `${rbacPath}/clusterroles`, {
          apiVersion: 'rbac.authorization.plat.io/v1',
          kind: 'ClusterRole',
          metadata: { name: `role-${n}` },
          rules: [
            { apiGroups: [`group-${n}.example.com`], resources: ['widgets'], verbs: ['get', 'list'] },
            { nonResourceURLs: [`/custom/${n}`], verbs: ['get'] },
          ],
        });
        await post(url, dispatcher, `${rbacPath}/clusterrolebindings`, {
          apiVersion: 'rbac.authorization.plat.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: `binding-${n}` },
          roleRef: { apiGroup: 'rbac.authorization.plat.io', kind: 'ClusterRole', name: `role-${n}` },
          subjects: [
            { apiGroup: 'rbac.authorization.plat.io', kind: 'User', name: `user-${n}` },
            { apiGroup: 'rbac.authorization.plat.io', kind: 'Group', name: `team-${n % 50}` },
          ],
        });
      }),
    );
  }
}

/** Whether user-123 may `verb` `resource` in `group` (SelfSubjectAccessReview with its token). */
async function userMay(url, plain, attrs) {
  const res = await request(`${url}/apis/authorization.plat.io/v1/selfsubjectaccessreviews`, {
    method: 'POST',
    dispatcher: plain,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ apiVersion: 'authorization.plat.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: attrs } }),
  });
  const body = await res.body.json();
  return body.status?.allowed === true;
}

async function waitFor(what, check) {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const spread = (xs) => ({ median: Number(median(xs).toFixed(3)), min: Number(Math.min(...xs).toFixed(3)), max: Number(Math.max(...xs).toFixed(3)) });

async function main() {
  const bundle = await buildApiServerBundle();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-bench-rbac-server-'));
  const tokens = path.join(dir, 'tokens.csv');
  fs.writeFileSync(tokens, `${token},user-123,u-123,"team-23"\n`);
  const authz = path.join(dir, 'authz.yaml');
  fs.writeFileSync(authz, authzConfig('RBAC'));
  const dataDir = path.join(dir, 'data');
  const server = await startApiServer({ bundle, dataDir, args: ['--storage-backend=memory', `--token-auth-file=${tokens}`, `--authorization-config=${authz}`] });
  const creds = adminCredentials(path.join(dataDir, 'admin.conf'));
  const admin = new Agent({ connect: creds });
  const plain = new Agent({ connect: { ca: creds.ca } });
  try {
    const url = server.url;
    await createBenchBundle(url, admin, creds);
    const started = Date.now();
    await seedPolicy(url, admin);
    // The authorizer has the whole policy once the last batch is in force (team-23 holds role-973).
    await waitFor('the seeded policy', () => userMay(url, plain, { verb: 'get', group: 'group-973.example.com', resource: 'widgets' }));
    log(`seeded 1,000 ClusterRoles and 1,000 ClusterRoleBindings in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const modes = {
      AlwaysAllow: { runs: [], inForce: () => userMay(url, plain, { verb: 'delete', group: 'certificates.plat.io', resource: 'clustertrustbundles' }) },
      RBAC: { runs: [], inForce: () => userMay(url, plain, { verb: 'delete', group: 'certificates.plat.io', resource: 'clustertrustbundles' }).then((a) => !a) },
    };
    const use = async (mode) => {
      replaceFile(authz, authzConfig(mode));
      await waitFor(`--authorization-config to switch to ${mode}`, modes[mode].inForce);
      // A member of team-23 through the index: allowed under RBAC by role-23's binding.
      if (mode === 'RBAC' && !(await userMay(url, plain, { verb: 'get', group: 'group-23.example.com', resource: 'widgets' }))) throw new Error('RBAC does not see the seeded bindings');
    };
    const target = {
      url: `${url}/apis/certificates.plat.io/v1alpha1/clustertrustbundles/bench`,
      tlsOptions: { ca: creds.ca },
      headers: { accept: 'application/json', authorization: `Bearer ${token}` },
    };
    // Warm-up of both modes; every answer must be 200.
    for (const mode of ['RBAC', 'AlwaysAllow']) {
      await use(mode);
      const r = await cannon({ ...target, duration: 1 });
      if (r.non2xx > 0 || r['2xx'] === 0) throw new Error(`warm-up under ${mode}: ${r.non2xx} non-2xx answers of ${r.requests.total}`);
    }
    const ratios = { rps: [], cpu: [] };
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 ? ['RBAC', 'AlwaysAllow'] : ['AlwaysAllow', 'RBAC'];
      const slice = {};
      for (const mode of order) {
        await use(mode);
        await new Promise((res) => setTimeout(res, 300));
        slice[mode] = await measuredSlice(cannon, server.child.pid, target);
        modes[mode].runs.push(slice[mode]);
      }
      const rps = (s) => s.total / s.seconds;
      const perCpu = (s) => s.total / s.cpu;
      ratios.rps.push(rps(slice.RBAC) / rps(slice.AlwaysAllow));
      ratios.cpu.push(perCpu(slice.RBAC) / perCpu(slice.AlwaysAllow));
      log(`round ${r + 1}/${rounds}: AlwaysAllow ${Math.round(rps(slice.AlwaysAllow))} req/s, RBAC ${Math.round(rps(slice.RBAC))} req/s, ratio ${ratios.rps.at(-1).toFixed(3)} (per CPU-s ${ratios.cpu.at(-1).toFixed(3)})`);
    }
    const out = {
      AlwaysAllow: mergeSlices(modes.AlwaysAllow.runs),
      RBAC: mergeSlices(modes.RBAC.runs),
      ratio: spread(ratios.rps),
      cpuRatio: spread(ratios.cpu),
      loadavg: os.loadavg().map((x) => Number(x.toFixed(1))),
      settings: { duration, rounds, connections, node: process.version, cpus: os.cpus().length },
    };
    if (asJson) {
      console.log(JSON.stringify(out, null, 2));
    } else {
      console.log('| authorizer | GET req/s | req per CPU-s | p99 ms | non-2xx | errors |');
      console.log('|---|---:|---:|---:|---:|---:|');
      for (const mode of ['AlwaysAllow', 'RBAC']) {
        const o = out[mode];
        console.log(`| ${mode === 'RBAC' ? '(b) RBAC, 1,000 roles and bindings' : '(a) AlwaysAllow'} | ${o.rps} | ${o.perCpuSecond} | ${o.p99ms} | ${o.non2xx} | ${o.errors} |`);
      }
      console.log(`(b)/(a) req/s: ${out.ratio.median} [${out.ratio.min}–${out.ratio.max}]; per CPU-second: ${out.cpuRatio.median} [${out.cpuRatio.min}–${out.cpuRatio.max}]; load ${out.loadavg.join(' ')}`);
      console.log(`target (b) >= 0.9 of (a): ${out.ratio.median >= 0.9 ? 'met' : 'NOT met'} (CPU ratio ${out.cpuRatio.median})`);
    }
  } finally {
    await admin.close();
    await plain.close();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
