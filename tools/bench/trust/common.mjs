// What the trust benchmarks (propagation.mjs, fanout.mjs, resolve.mjs) share: flags, the started
// apiserver (tools/bench/lib's harness), @plat/trust, @plat/client and @plat/x509 from their
// sources (lib/import-sources.mjs), distinct CA certificates to publish, bundle writes with the admin
// credentials, and percentiles / median [min–max] over rounds.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { adminCredentials, benchFlags, buildApiServerBundle, root, startApiServer } from '../lib/apiserver-harness.mjs';
import { importSources } from '../lib/import-sources.mjs';

export const collection = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';

/** `--rounds N` (default 5), `--json`, `--backend` (default sqlite) and the flag reader for the rest. */
export function trustBenchFlags() {
  const { flag, has } = benchFlags();
  const rounds = Number(flag('rounds', '5'));
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds: expected a positive integer, got ${flag('rounds')}`);
  const backend = flag('backend', 'sqlite');
  if (!['sqlite', 'memory'].includes(backend)) throw new Error(`--backend: expected sqlite or memory, got ${backend}`);
  const asJson = has('--json');
  const log = (...m) => {
    if (!asJson) console.error(...m);
  };
  return { flag, has, rounds, backend, asJson, log };
}

/** @plat/trust, @plat/client and @plat/x509 from their sources, in this process (`x509` as a namespace). */
export function loadTrustPackages() {
  return importSources(["export * from '@plat/trust';", "export * from '@plat/client';", "export * as x509 from '@plat/x509';"].join('\n'));
}

/**
 * Starts the bundled apiserver (SQLite or memory backend) on a free port with a fresh data
 * directory (`nodeArgs` go to node before the bundle; `bundle`: one built elsewhere instead of
 * this tree's), and an undici Agent with its admin credentials. `stop()` ends both and removes the
 * directory.
 */
export async function startServer({ backend, args = [], nodeArgs = [], bundle: prebuilt }) {
  const bundle = prebuilt ?? (await buildApiServerBundle());
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-bench-trust-data-'));
  let api;
  try {
    api = await startApiServer({ bundle, dataDir, args: [`--storage-backend=${backend}`, '--v=0', ...args], nodeArgs, cwd: root, timeoutMs: 60_000 });
  } catch (err) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const creds = adminCredentials(api.kubeconfig);
  const dispatcher = new Agent({ connect: { ca: creds.ca, cert: creds.cert, key: creds.key }, connections: 16 });
  return {
    ...api,
    dispatcher,
    async stop() {
      await dispatcher.close();
      await api.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Creates the ClusterTrustBundle `name` of `signerName` (`create: true`, POST), or changes its
 * trustBundle (merge PATCH, as `kubectl patch --type merge` does), and resolves with
 * `performance.now()` at the moment the server's answer arrived (status line and headers), once
 * the answer is 201 or 200, and with the written object's resourceVersion.
 */
export async function writeBundle(server, { name, signerName, trustBundle, create = false }) {
  const body = create
    ? { apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name }, spec: { signerName, trustBundle } }
    : { spec: { trustBundle } };
  const res = await request(`${server.url}${collection}${create ? '' : `/${encodeURIComponent(name)}`}`, {
    method: create ? 'POST' : 'PATCH',
    dispatcher: server.dispatcher,
    headers: { 'content-type': create ? 'application/json' : 'application/merge-patch+json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  const answeredAt = performance.now();
  const text = await res.body.text();
  if (res.statusCode !== (create ? 201 : 200)) throw new Error(`${create ? 'create' : 'patch'} ${name}: ${res.statusCode} ${text}`);
  return { answeredAt, resourceVersion: JSON.parse(text).metadata?.resourceVersion };
}

/** A signer name's bundle name prefix, as the API requires (`example.com/x` → `example.com:x:`). */
export const bundleName = (signerName, suffix) => `${signerName.replace('/', ':')}:${suffix}`;

/**
 * `count` distinct self-signed CA certificates (PEM), made `parallel` at a time with @plat/x509's
 * development PKI (ECDSA P-256).
 */
export async function makeCertificates(x509, count, prefix, parallel = 50) {
  const out = [];
  for (let i = 0; i < count; i += parallel) {
    const batch = await Promise.all(Array.from({ length: Math.min(parallel, count - i) }, (_, j) => x509.createCertificateAuthority({ commonName: `${prefix}-${i + j}` })));
    out.push(...batch.map((b) => b.certPem));
  }
  return out;
}

/** Nearest-rank percentile of an ascending array. */
function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** p50, p99 and max of some milliseconds, rounded to 0.1 ms. */
export function distribution(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const r = (x) => Number(x.toFixed(1));
  return { n: s.length, p50: r(percentile(s, 50)), p99: r(percentile(s, 99)), max: r(s[s.length - 1] ?? NaN), min: r(s[0] ?? NaN) };
}

/** Median and range over rounds of one figure: `{ median, min, max }`. */
export function overRounds(values) {
  return { median: Number(median(values).toFixed(3)), min: Number(Math.min(...values).toFixed(3)), max: Number(Math.max(...values).toFixed(3)) };
}

/** `median [min–max]` with `digits` decimals. */
export function formatRange({ median: m, min, max }, digits = 1) {
  return `${m.toFixed(digits)} [${min.toFixed(digits)}–${max.toFixed(digits)}]`;
}

/** The machine's 1, 5 and 15 minute load averages (what `uptime` prints). */
export function loadAverage() {
  return os.loadavg().map((l) => Number(l.toFixed(1)));
}

/** Polls `predicate` every 10 ms until it holds, or throws after `timeoutMs` naming `what`. */
export async function waitFor(what, predicate, timeoutMs = 30_000) {
  const started = Date.now();
  while (!(await predicate())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Runs `main`, prints its error and exits 1 on failure, exits 0 otherwise (watches may hold the loop). */
export function runMain(main) {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
