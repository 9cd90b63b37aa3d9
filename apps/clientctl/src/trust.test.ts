import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { canonicalTrustBundle, createCertificate, createCertificateAuthority, type PemKeyPair } from '@plat/x509';
import { startClientctlServer, type ClientctlServer } from '../test/clientctl-server.js';
import { clientctl } from '../test/harness.js';

// `clientctl trust` against a real API server (packages/server over HTTPS, memory storage).
const signer = 'example.com/mesh';
let dir: string;
let server: ClientctlServer;
let env: Record<string, string>;
let root: PemKeyPair, next: PemKeyPair, expired: PemKeyPair, intermediate: PemKeyPair;

function manifest(name: string, pems: PemKeyPair[], opts: { signer?: string; labels?: Record<string, string> } = {}): string {
  return JSON.stringify({
    apiVersion: 'certificates.plat.io/v1alpha1',
    kind: 'ClusterTrustBundle',
    metadata: { name, ...(opts.labels ? { labels: opts.labels } : {}) },
    spec: { ...(opts.signer ? { signerName: opts.signer } : {}), trustBundle: pems.map((p) => p.certPem).join('') },
  });
}

async function apply(name: string, pems: PemKeyPair[], opts: { signer?: string; labels?: Record<string, string> } = {}) {
  const r = await clientctl(['apply', '-f', '-'], env, manifest(name, pems, opts));
  expect(r.code).toBe(0);
  // The server warns about the anchors these tests make expired or soon to expire; nothing else.
  expect(r.stderr).toMatch(/^(Warning: spec\.trustBundle: trust anchor "CN=mesh-(next|expired)" .*\n)*$/);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'clientctl-trust-'));
  [server, root, next] = await Promise.all([
    startClientctlServer(dir),
    createCertificateAuthority({ commonName: 'mesh-root' }),
    createCertificateAuthority({ commonName: 'mesh-next', validityDays: 10 }),
  ]);
  env = server.env;
  expired = await createCertificate({ commonName: 'mesh-expired', basicConstraints: 'ca', keyUsage: ['keyCertSign'], notBefore: new Date(Date.now() - 400 * 86_400_000), validityDays: 30 });
  intermediate = await createCertificate({ commonName: 'mesh-intermediate', basicConstraints: 'ca', keyUsage: ['keyCertSign'] }, root);
  await apply('example.com:mesh:current', [root], { signer, labels: { stage: 'current' } });
  await apply('example.com:mesh:next', [next, root], { signer, labels: { stage: 'next' } });
  await apply('legacy', [expired, intermediate]);
}, 60_000);
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('clientctl trust resolve', () => {
  it('prints the canonical PEM of one bundle, or of all of a signer\'s bundles with --signer', async () => {
    expect(await clientctl(['trust', 'resolve', 'example.com:mesh:current'], env)).toEqual({ code: 0, stdout: root.certPem, stderr: '' });
    const all = await clientctl(['trust', 'resolve', '--signer', signer], env);
    expect(all).toEqual({ code: 0, stdout: canonicalTrustBundle([root.certPem, next.certPem]).pem, stderr: '' });
    const narrowed = await clientctl(['trust', 'resolve', '--signer', signer, '-l', 'stage!=next'], env);
    expect(narrowed.stdout).toBe(root.certPem);
  });

  it('adds the digest, the anchors and the sources with -o json', async () => {
    const r = await clientctl(['trust', 'resolve', '--signer', signer, '-o', 'json'], env);
    const doc = JSON.parse(r.stdout) as { pem: string; digest: string; anchors: { subject: string; notAfter: string; selfSigned: boolean }[]; sources: { name: string; resourceVersion: string }[] };
    const expected = canonicalTrustBundle([root.certPem, next.certPem]);
    expect(doc.digest).toBe(expected.digest);
    expect(doc.pem).toBe(expected.pem);
    expect(doc.anchors.map((a) => a.subject).sort()).toEqual(['CN=mesh-next', 'CN=mesh-root']);
    expect(doc.anchors[0].notAfter).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(doc.sources.map((s) => s.name)).toEqual(['example.com:mesh:current', 'example.com:mesh:next']);
    expect(r.stdout.split('\n')[1]).toMatch(/^ {4}"/);
  });
});

describe('clientctl trust inspect', () => {
  it('prints one row per anchor with expiry and notes', async () => {
    const r = await clientctl(['trust', 'inspect', 'legacy'], env);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SUBJECT\s+SHA256\s+NOT-BEFORE\s+NOT-AFTER\s+EXPIRES-IN\s+NOTES$/);
    const rows = Object.fromEntries(lines.slice(1).map((l) => [l.split(/\s+/)[0], l.split(/\s{3,}/)]));
    expect(rows['CN=mesh-expired']).toEqual([
      'CN=mesh-expired',
      expect.stringMatching(/^[0-9a-f]{16}$/),
      expect.stringMatching(/Z$/),
      expect.stringMatching(/Z$/),
      '<invalid>',
      'expired',
    ]);
    expect(rows['CN=mesh-intermediate'].slice(4)).toEqual([expect.stringMatching(/^3\d\dd$/), 'not self-signed']);
    const root = await clientctl(['trust', 'inspect', '--signer', signer, '-l', 'stage=current', '--no-headers'], env);
    expect(root.stdout).toMatch(/^CN=mesh-root\s+[0-9a-f]{16}\s+\S+\s+\S+\s+3\d\dd\s+<none>\n$/);
  });

  it('exits 1 with --fail-within, naming the anchors that expire within it', async () => {
    const r = await clientctl(['trust', 'inspect', '--signer', signer, '--fail-within', '720h'], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('CN=mesh-root');
    expect(r.stderr).toMatch(/^error: 1 trust anchor expires within 720h:\n {2}CN=mesh-next \(sha256 [0-9a-f]{16}\): not after \S+Z \(in 9d\)\n$/);
    expect((await clientctl(['trust', 'inspect', '--signer', signer, '-l', 'stage=current', '--fail-within', '720h'], env)).code).toBe(0);
    const both = await clientctl(['trust', 'inspect', 'legacy', '--fail-within', '1h', '-o', 'yaml'], env);
    expect(both.code).toBe(1);
    expect(both.stderr).toMatch(/^error: 1 trust anchor expires within 1h:\n {2}CN=mesh-expired .*\(expired \d+d ago\)\n$/);
    expect(both.stdout).toContain('notes:\n  - expired');
  });

  it('reads a PEM file or manifests with -f, without a server, warning about what a bundle could not hold', async () => {
    const file = path.join(dir, 'mixed.pem');
    writeFileSync(file, root.certPem + root.keyPem);
    const r = await clientctl(['trust', 'inspect', '-f', file, '-o', 'json', '--server', 'https://127.0.0.1:1'], env);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`Warning: ${file}: entry 1 has bad block type: PRIVATE KEY\n`);
    expect(JSON.parse(r.stdout)).toMatchObject({ digest: canonicalTrustBundle([root.certPem]).digest, anchors: [{ subject: 'CN=mesh-root', notes: [] }] });
    const fromStdin = await clientctl(['trust', 'inspect', '-f', '-', '--no-headers'], env, manifest('x', [next]));
    expect(fromStdin.stdout).toMatch(/^CN=mesh-next /);
    expect(await clientctl(['trust', 'inspect', '-f', path.join(dir, 'nope.pem')], env)).toMatchObject({ code: 1, stderr: `error: the path "${path.join(dir, 'nope.pem')}" does not exist\n` });
  });
});

describe('clientctl trust errors', () => {
  it('refuses NAME with --signer, -l without --signer, and no selection, kubectl-style', async () => {
    expect(await clientctl(['trust', 'resolve', 'legacy', '--signer', signer], env)).toEqual({
      code: 1,
      stdout: '',
      stderr: "error: NAME cannot be provided when --signer is specified\nSee 'clientctl trust resolve -h' for help and examples\n",
    });
    expect((await clientctl(['trust', 'inspect', '-l', 'a=b'], env)).stderr).toBe(
      "error: -l/--selector can only be used with --signer\nSee 'clientctl trust inspect -h' for help and examples\n",
    );
    expect((await clientctl(['trust', 'sync', '--to', 'x'], env)).stderr).toBe(
      "error: you must specify a ClusterTrustBundle NAME or --signer\nSee 'clientctl trust sync -h' for help and examples\n",
    );
    expect((await clientctl(['trust', 'sync', 'legacy'], env)).stderr).toBe('Error: required flag(s) "to" not set\nSee \'clientctl trust sync --help\' for usage.\n');
    expect((await clientctl(['trust', 'resolve', 'legacy', '-o', 'wide'], env)).stderr).toBe(
      'error: unable to match a printer suitable for the output format "wide", allowed formats are: jks,json,pem,pkcs12,spiffe,yaml\n',
    );
  });

  it('prints server and selection errors in the usual shape', async () => {
    expect(await clientctl(['trust', 'resolve', 'missing'], env)).toMatchObject({
      code: 1,
      stderr: 'Error from server (NotFound): clustertrustbundles.certificates.plat.io "missing" not found\n',
    });
    expect((await clientctl(['trust', 'inspect', '--signer', 'example.com/none'], env)).stderr).toBe(
      'error: combination of signerName and labelSelector matched zero ClusterTrustBundles (signer "example.com/none")\n',
    );
    expect((await clientctl(['trust', 'resolve', '--signer', 'not-a-signer'], env)).stderr).toMatch(/^error: invalid trust anchor selection: signerName: Invalid value: "not-a-signer"/);
    expect((await clientctl(['trust', 'resolve', 'legacy', '--server', 'https://127.0.0.1:1'], env)).stderr).toBe(
      'The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?\n',
    );
  });
});

describe('clientctl trust sync', () => {
  it('--once writes the file (mode 0644) if it differs, runs --exec, and says when it is up to date', async () => {
    const file = path.join(dir, 'once.pem');
    const log = path.join(dir, 'once.log');
    const first = await clientctl(['trust', 'sync', '--signer', signer, '--to', file, '--once', '--exec', `echo "$PLAT_TRUST_DIGEST" >> ${log}`], env);
    expect(first.code).toBe(0);
    const expected = canonicalTrustBundle([root.certPem, next.certPem]);
    expect(readFileSync(file, 'utf8')).toBe(expected.pem);
    expect(statSync(file).mode & 0o777).toBe(0o644);
    expect(readFileSync(log, 'utf8')).toBe(`${expected.digest}\n`);
    expect(first.stderr).toMatch(new RegExp(`^I\\d{4} [\\d:.]+ +\\d+ trust.ts\\] wrote ${file}: 2 anchors, digest ${expected.digest.slice(0, 16)}, from example.com:mesh:current@\\d+, example.com:mesh:next@\\d+\\n$`));
    const again = await clientctl(['trust', 'sync', '--signer', signer, '--to', file, '--once', '--exec', `echo again >> ${log}`], env);
    expect(again.stderr).toContain(`${file} is up to date`);
    expect(readFileSync(log, 'utf8')).toBe(`${expected.digest}\n`);
  });

  it('follows changes until stopped, logging a failing --exec and going on', async () => {
    const file = path.join(dir, 'follow.pem');
    const stop = new AbortController();
    let stderr = '';
    const running = clientctl(['trust', 'sync', 'example.com:mesh:current', '--to', file, '--exec', 'test -f /nonexistent-marker || exit 3'], { ...env, PATH: process.env.PATH }, '', {
      stop: stop.signal,
      onStderr: (t) => void (stderr += t),
    });
    const waitFor = async (pred: () => boolean) => {
      for (const end = Date.now() + 15_000; !pred() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
      expect(pred()).toBe(true);
    };
    const read = () => {
      try {
        return readFileSync(file, 'utf8');
      } catch {
        return '';
      }
    };
    await waitFor(() => read() === root.certPem);
    await waitFor(() => stderr.includes('exited with code 3'));
    await apply('example.com:mesh:current', [root, next], { signer, labels: { stage: 'current' } });
    await waitFor(() => read() === canonicalTrustBundle([root.certPem, next.certPem]).pem);
    await waitFor(() => (stderr.match(/exited with code 3/g) ?? []).length === 2);
    stop.abort();
    const r = await running;
    expect(r.code).toBe(0);
    expect(stderr).toMatch(/trust.ts\] stopped\n$/);
    await apply('example.com:mesh:current', [root], { signer, labels: { stage: 'current' } });
  });
});
