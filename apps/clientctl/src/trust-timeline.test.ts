import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCertificate, createCertificateAuthority, type PemKeyPair } from '@plat/x509';
import { startClientctlServer, type ClientctlServer } from '../test/clientctl-server.js';
import { clientctl } from '../test/harness.js';

// `clientctl trust inspect --timeline` against a real API server (packages/server over HTTPS, memory storage).
const signer = 'example.com/edge';
const ansi = /\x1b\[[0-9;]*m/g;
let dir: string;
let server: ClientctlServer;
let env: Record<string, string>;
let root: PemKeyPair, next: PemKeyPair, expired: PemKeyPair;
const fingerprint = (p: PemKeyPair) => new X509Certificate(p.certPem).fingerprint256.replaceAll(':', '').slice(0, 8).toLowerCase();

function manifest(name: string, pems: PemKeyPair[]): string {
  return JSON.stringify({
    apiVersion: 'certificates.plat.io/v1alpha1',
    kind: 'ClusterTrustBundle',
    metadata: { name },
    spec: { signerName: signer, trustBundle: pems.map((p) => p.certPem).join('') },
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'clientctl-timeline-'));
  [server, root, next, expired] = await Promise.all([
    startClientctlServer(dir),
    createCertificateAuthority({ commonName: 'edge-root', validityDays: 730 }),
    createCertificateAuthority({ commonName: 'edge-next', validityDays: 10 }),
    createCertificate({ commonName: 'edge-expired', basicConstraints: 'ca', keyUsage: ['keyCertSign'], notBefore: new Date(Date.now() - 200 * 86_400_000), validityDays: 100 }),
  ]);
  env = server.env;
  for (const [name, pems] of [['example.com:edge:current', [root, expired]], ['example.com:edge:next', [next]]] as const) {
    const r = await clientctl(['apply', '-f', '-'], env, manifest(name, [...pems]));
    expect(r.code).toBe(0);
  }
}, 60_000);
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('clientctl trust inspect --timeline', () => {
  it('draws the selection on a time axis in plain ASCII when stdout is no terminal', async () => {
    const r = await clientctl(['trust', 'inspect', '--signer', signer, '--timeline', '--width', '100'], env);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).not.toMatch(ansi);
    const lines = r.stdout.trimEnd().split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
    expect(lines[0]).toMatch(/^ +\d{4}-\d\d-\d\d .* \d{4}-\d\d-\d\d$/);
    // Earliest notAfter first: the expired anchor, then the one of 10 days, then the root.
    expect(lines.slice(2, 5)).toEqual([
      expect.stringMatching(new RegExp(`^edge-expired ${fingerprint(expired)} +x+ +\\| +\\d{4}-\\d\\d-\\d\\d$`)),
      expect.stringMatching(new RegExp(`^edge-next ${fingerprint(next)} +=+ +\\d{4}-\\d\\d-\\d\\d$`)),
      expect.stringMatching(new RegExp(`^edge-root ${fingerprint(root)} +=+ \\d{4}-\\d\\d-\\d\\d$`)),
    ]);
    expect(lines[5]).toMatch(new RegExp(`^ +\\^ today ${new Date().toISOString().slice(0, 10)}$`));
    expect(lines[6]).toBe('= valid  x expired  | today  <> beyond the axis');
  });

  it('highlights what expires within --fail-within and still exits 1, naming those anchors', async () => {
    const r = await clientctl(['trust', 'inspect', '--signer', signer, '--timeline', '--width', '90', '--fail-within', '720h'], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`\\nedge-next ${fingerprint(next)} +!+ `));
    expect(r.stdout).toMatch(/\n= valid {2}! expires within 30d {2}x expired/);
    expect(r.stderr).toMatch(/^error: 2 trust anchors expire within 720h:\n {2}CN=edge-expired .*\(expired \d+d ago\)\n {2}CN=edge-next .*\(in 9d\)\n$/);
    expect((await clientctl(['trust', 'inspect', 'example.com:edge:next', '--timeline', '--fail-within', '24h'], env)).code).toBe(0);
  });

  it('colours for a terminal, at its width, unless NO_COLOR is set', async () => {
    const args = ['trust', 'inspect', '--signer', signer, '--timeline', '--fail-within', '720h'];
    const tty = await clientctl(args, env, '', { terminal: { columns: 70 } });
    expect(tty.stdout).toMatch(/\x1b\[31mx+/);
    expect(tty.stdout).toMatch(/\x1b\[33m!+/);
    expect(tty.stdout).toMatch(/\x1b\[32m=+/);
    const plain = tty.stdout.replace(ansi, '');
    expect(Math.max(...plain.trimEnd().split('\n').map((l) => l.length))).toBeLessThanOrEqual(70);
    expect(plain).toBe((await clientctl([...args, '--width', '70'], env)).stdout);
    for (const noColor of ['1', 'true']) {
      expect((await clientctl(args, { ...env, NO_COLOR: noColor }, '', { terminal: { columns: 70 } })).stdout).toBe(plain);
    }
    // NO_COLOR set but empty does not count (no-color.org).
    expect((await clientctl(args, { ...env, NO_COLOR: '' }, '', { terminal: { columns: 70 } })).stdout).toBe(tty.stdout);
    // --width wins over the terminal's.
    const wide = await clientctl([...args, '--width', '120'], env, '', { terminal: { columns: 70 } });
    expect(Math.max(...wide.stdout.replace(ansi, '').trimEnd().split('\n').map((l) => l.length))).toBeGreaterThan(70);
  });

  it('draws a file without a server, and refuses -o and a negative width', async () => {
    const file = path.join(dir, 'edge.pem');
    writeFileSync(file, next.certPem + root.certPem);
    const r = await clientctl(['trust', 'inspect', '-f', file, '--timeline', '--width', '30', '--server', 'https://127.0.0.1:1'], env);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter((l) => /^edge-/.test(l))).toHaveLength(2);
    expect(await clientctl(['trust', 'inspect', '--signer', signer, '--timeline', '-o', 'json'], env)).toEqual({
      code: 1,
      stdout: '',
      stderr: "error: --timeline cannot be combined with -o/--output\nSee 'clientctl trust inspect -h' for help and examples\n",
    });
    expect((await clientctl(['trust', 'inspect', '--signer', signer, '--timeline', '--width', '-5'], env)).stderr).toMatch(/^Error: invalid argument "-5" for "--width" flag: must not be negative\n/);
  });
});
