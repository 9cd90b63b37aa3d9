import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { decodeTrustAnchors } from '@plat/trust';
import { readBundleCertificates } from '@plat/x509';
import { bash, startWalkthroughServer, stopWalkthroughServer, ReloadingTlsService, walkthroughBlocks, type ApiserverProcess, type RunningProcess } from '../test/processes.js';

// docs/trust-distribution.md, "Java and Kafka", "SPIFFE federation" and "Filtering expired
// anchors", run block by block with bash against a started apiserver: openssl makes the CAs,
// `clientctl trust sync --format jks|pkcs12` and `trust serve --spiffe` run as processes, Java 17
// (`java TlsGet.java`, keytool) and curl are the clients. Java walk-through blocks skip only when
// no Java is installed (tools/install-system-packages.sh installs it).
let dir: string;
let apiserver: ApiserverProcess;
let shimDir: string;
const hasJava = ['java', 'keytool'].every((t) => {
  const found = spawnSync('/bin/sh', ['-c', `command -v ${t}`], { stdio: 'ignore' }).status === 0;
  if (!found) console.warn(`${t} is not installed (tools/install-system-packages.sh installs it): skipping the Java and Kafka walk-through`);
  return found;
});

/** A walk-through's background block, run by bash (it may name environment variables) as one process. */
function background(code: string, env: Record<string, string>, cwd: string): RunningProcess {
  const child = spawn('/bin/bash', ['-c', `exec ${code.trim()}`], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function freePort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** Runs the blocks in order; `onBlock` sees each result. Background processes are stopped (SIGTERM, exit 0) at the end. */
async function runWalkthrough(
  heading: string,
  to: string,
  work: string,
  env: Record<string, string>,
  onBlock: (mark: string, code: string, result: { stdout: string; stderr: string }) => Promise<void>,
): Promise<string[]> {
  const marks: string[] = [];
  const running: RunningProcess[] = [];
  try {
    for (const block of walkthroughBlocks('trust-distribution.md', heading, to)) {
      marks.push(block.mark);
      if (block.mark === 'environment') {
        // The walk-through's own values are this test's: every exported name must be one the test sets.
        for (const m of block.code.matchAll(/^export (\w+)=/gm)) expect(Object.keys(env)).toContain(m[1]);
        continue;
      }
      if (block.mark === 'background') {
        running.push(background(block.code, env, work));
        continue;
      }
      const r = await bash(block.code, work, env);
      if (r.code !== 0) throw new Error(`block failed (${r.code}):\n${block.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}\nbackground:\n${running.map((p) => p.stderr()).join('')}`);
      await onBlock(block.mark, block.code, r);
    }
  } finally {
    for (const p of running) p.child.kill('SIGTERM');
    for (const p of running) expect(await p.exited).toBe(0);
  }
  return marks;
}

beforeAll(async () => {
  ({ dir, shimDir, apiserver } = await startWalkthroughServer('clientctl-trust-formats-'));
}, 120_000);
afterAll(() => stopWalkthroughServer({ dir, apiserver }));

const baseEnv = () => ({ PATH: `${shimDir}:${process.env.PATH}`, HOME: dir, KUBECONFIG: apiserver.kubeconfig });

describe('docs/trust-distribution.md walk-throughs', () => {
  (hasJava ? it : it.skip)('Java and Kafka: a Java client trusts the service through the JKS store trust sync keeps, and a new Java process trusts the new CA', async () => {
    const service = new ReloadingTlsService();
    const work = mkdtempSync(path.join(dir, 'java-'));
    const env: Record<string, string> = { ...baseEnv(), SERVICE: '' };
    const javaAnswers: string[] = [];
    try {
      const marks = await runWalkthrough('## Java and Kafka', '## SPIFFE federation', work, env, async (mark, code, r) => {
        if (mark.startsWith('issue ')) {
          await service.reload(path.join(work, 'broker.crt'), path.join(work, 'broker.key'));
          env.SERVICE = service.url;
        }
        if (code.includes('keytool -list')) {
          // keytool lists the canonical anchors of the store by alias.
          expect(r.stdout).toContain('Your keystore contains 1 entry');
          const alias = /^kafka-ca-2025-([0-9a-f]{8}), .*, trustedCertEntry,/m.exec(r.stdout);
          expect(alias).not.toBeNull();
          // The alias ends with the first 8 hex digits of the fingerprint keytool prints.
          expect(r.stdout).toContain(`Certificate fingerprint (SHA-256): ${alias![1].toUpperCase().replace(/(..)(?!$)/g, '$1:')}:`);
        }
        if (code.includes('TlsGet.java "$SERVICE/"')) javaAnswers.push(r.stdout.trim().split('\n').at(-1)!);
      });
      expect(marks).toEqual(['environment', 'run', 'issue kafka-2025', 'background', 'run', 'run', 'issue kafka-2026', 'run']);
      expect(javaAnswers).toEqual(['200 ok', '200 ok']);
      // The end state: both CAs in both stores, the PKCS#12 one password-less.
      const pem = readFileSync(path.join(work, 'kafka-2025.crt'), 'utf8') + readFileSync(path.join(work, 'kafka-2026.crt'), 'utf8');
      const want = readBundleCertificates(pem).map((c) => Buffer.from(c.der).toString('hex')).sort();
      for (const [file, format] of [['truststore.jks', 'jks'], ['truststore.p12', 'pkcs12']] as const) {
        const held = await decodeTrustAnchors(readFileSync(path.join(work, file)), format, format === 'jks' ? { password: 'changeit' } : {});
        expect(held.certificates.map((c) => Buffer.from(c.der).toString('hex')).sort()).toEqual(want);
      }
    } finally {
      await service.close();
    }
  }, 180_000);

  it('SPIFFE federation: the endpoint answers application/json and a polling client gets a greater sequence after a change', async () => {
    const work = mkdtempSync(path.join(dir, 'spiffe-'));
    const env: Record<string, string> = { ...baseEnv(), BUNDLE_ENDPOINT: `127.0.0.1:${await freePort()}` };
    const outputs: string[] = [];
    const marks = await runWalkthrough('## SPIFFE federation', '## Filtering expired anchors', work, env, async (_mark, _code, r) => void outputs.push(r.stdout));
    expect(marks).toEqual(['environment', 'run', 'background', 'run', 'run']);
    expect(outputs[1]).toMatch(/^content-type: application\/json\r?\n/i);
    const summary = JSON.parse(outputs[1].slice(outputs[1].indexOf('{'))) as { spiffe_sequence: number; spiffe_refresh_hint: number; keys: unknown[] };
    expect(summary).toEqual({ spiffe_sequence: expect.any(Number), spiffe_refresh_hint: 60, keys: [{ use: 'x509-svid', kty: 'EC', crv: 'P-256' }] });
    const headers = readFileSync(path.join(work, 'headers.txt'), 'utf8');
    expect(headers).toMatch(/^cache-control: no-cache\r?$/im);
    expect(headers).toMatch(/^etag: "[0-9a-f]{32}"\r?$/im);
    // The bundle's x5c are the DER of the PEM the CAs were published as.
    const bundle = await decodeTrustAnchors(readFileSync(path.join(work, 'bundle.json')), 'spiffe');
    const pem = readFileSync(path.join(work, 'spiffe-2025.crt'), 'utf8') + readFileSync(path.join(work, 'spiffe-2026.crt'), 'utf8');
    expect(bundle.certificates.map((c) => Buffer.from(c.der).toString('hex')).sort()).toEqual(readBundleCertificates(pem).map((c) => Buffer.from(c.der).toString('hex')).sort());
  }, 120_000);

  it('Filtering expired anchors: the server keeps the expired root, the consumer leaves it out and names it', async () => {
    const work = mkdtempSync(path.join(dir, 'filter-'));
    const results: { stdout: string; stderr: string }[] = [];
    const marks = await runWalkthrough('## Filtering expired anchors', '## Rotate a CA without downtime', work, baseEnv(), async (_mark, _code, r) => void results.push(r));
    expect(marks).toEqual(['environment', 'run', 'run']);
    const [, filtering] = results;
    expect(filtering.stdout).toMatch(/^2\n/);
    expect(filtering.stderr).toMatch(/W\d{4} .*trust.ts\] trust anchor "CN=web-ca-2019" \(sha256 [0-9a-f]{16}\) expired at 2020-01-01T00:00:00Z: left out\n/);
    expect(filtering.stderr).toMatch(/W\d{4} .*trust.ts\] trust anchor "CN=web-ca-2026" \(sha256 [0-9a-f]{16}\) expires at \S+Z, within the minimum remaining time\n/);
    expect(filtering.stderr).toMatch(/trust.ts\] wrote web-ca.pem: 1 anchor, /);
    expect(readFileSync(path.join(work, 'web-ca.pem'), 'utf8')).toBe(readFileSync(path.join(work, 'web-2026.crt'), 'utf8'));
    expect(filtering.stdout).toMatch(/CN=web-ca-2026/);
  }, 120_000);
});
