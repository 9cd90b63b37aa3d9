import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeTrustAnchors, truststoreAlias } from '@plat/trust';
import { canonicalTrustBundle, createCertificate, createCertificateAuthority, readBundleCertificates, type PemKeyPair } from '@plat/x509';
import { startClientctlServer, type ClientctlServer } from '../test/clientctl-server.js';
import { clientctl } from '../test/harness.js';

// `clientctl trust resolve -o pkcs12|jks|spiffe`, `trust sync --format/--to` pairs and the
// consumer's filter, against a real API server (packages/server over HTTPS, memory storage).
// Java and OpenSSL read the same encoders' output in packages/trust; the JKS sync through a CA
// rotation with a Java client is in trust-java-rotation.process.test.ts.
const signer = 'example.com/formats';
let dir: string;
let server: ClientctlServer;
let env: Record<string, string>;
let root: PemKeyPair, expired: PemKeyPair;
const hex = (der: Uint8Array) => Buffer.from(der).toString('hex');

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'clientctl-trust-formats-'));
  [server, root, expired] = await Promise.all([
    startClientctlServer(dir),
    createCertificateAuthority({ commonName: 'formats-root' }),
    createCertificate({ commonName: 'formats-expired', basicConstraints: 'ca', keyUsage: ['keyCertSign'], notBefore: new Date(Date.now() - 400 * 86_400_000), validityDays: 30 }),
  ]);
  env = server.env;
  const manifest = JSON.stringify({
    apiVersion: 'certificates.plat.io/v1alpha1',
    kind: 'ClusterTrustBundle',
    metadata: { name: 'example.com:formats:roots' },
    spec: { signerName: signer, trustBundle: root.certPem + expired.certPem },
  });
  expect((await clientctl(['apply', '-f', '-'], env, manifest)).code).toBe(0);
}, 60_000);
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('clientctl trust resolve -o', () => {
  it('writes JKS (password changeit), PKCS#12 (password from a file) and a SPIFFE bundle holding exactly the canonical anchors', async () => {
    const canonical = canonicalTrustBundle([root.certPem, expired.certPem]);
    const ders = readBundleCertificates(canonical.pem).map((c) => hex(c.der));
    const aliases = canonical.anchors.map((a) => truststoreAlias(a.subject, a.sha256));
    const pwFile = path.join(dir, 'pw');
    writeFileSync(pwFile, 's3cret\n');
    const jks = await clientctl(['trust', 'resolve', '--signer', signer, '-o', 'jks'], env);
    expect(jks.code).toBe(0);
    const fromJks = await decodeTrustAnchors(jks.bytes!, 'jks', { password: 'changeit' });
    expect(fromJks.certificates.map((c) => hex(c.der))).toEqual(ders);
    expect(fromJks.certificates.map((c) => c.alias)).toEqual(aliases);
    const p12 = await clientctl(['trust', 'resolve', '--signer', signer, '-o', 'pkcs12', '--password-file', pwFile], env);
    expect((await decodeTrustAnchors(p12.bytes!, 'pkcs12', { password: 's3cret' })).certificates.map((c) => hex(c.der))).toEqual(ders);
    await expect(decodeTrustAnchors(p12.bytes!, 'pkcs12', { password: 's3cret\n' })).rejects.toMatchObject({ code: 'DecodeFailed' });
    const spiffe = await clientctl(['trust', 'resolve', '--signer', signer, '-o', 'spiffe', '--spiffe-refresh-hint', '1m'], env);
    const bundle = await decodeTrustAnchors(spiffe.bytes!, 'spiffe');
    expect(bundle.certificates.map((c) => hex(c.der))).toEqual(ders);
    expect(bundle.spiffeRefreshHintSeconds).toBe(60);
    expect(bundle.spiffeSequence).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) - 60);
  });

  it('refuses an unknown format in kubectl\'s words', async () => {
    expect(await clientctl(['trust', 'resolve', '--signer', signer, '-o', 'der'], env)).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: unable to match a printer suitable for the output format "der", allowed formats are: jks,json,pem,pkcs12,spiffe,yaml\n',
    });
  });

  it('--exclude-expired leaves the expired anchor out and names it; --min-remaining only warns', async () => {
    const r = await clientctl(['trust', 'resolve', '--signer', signer, '--exclude-expired'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(root.certPem);
    expect(r.stderr).toMatch(/^Warning: trust anchor "CN=formats-expired" \(sha256 [0-9a-f]{16}\) expired at \S+: left out\n$/);
    const warnOnly = await clientctl(['trust', 'resolve', '--signer', signer, '--min-remaining', '8760h', '-o', 'json'], env);
    expect((JSON.parse(warnOnly.stdout) as { anchors: unknown[] }).anchors).toHaveLength(2);
    expect(warnOnly.stderr).toContain('Warning: trust anchor "CN=formats-root"');
    expect(warnOnly.stderr).toContain('within the minimum remaining time');
  });
});

describe('clientctl trust sync --format --to', () => {
  it('--once writes each --to in the --format at its position, and says when all are up to date', async () => {
    const files = ['ca.pem', 'ca.jks', 'ca.p12', 'bundle.json'].map((f) => path.join(dir, f));
    const args = ['trust', 'sync', '--signer', signer, '--exclude-expired', '--once'];
    ['pem', 'jks', 'pkcs12', 'spiffe'].forEach((format, i) => args.push('--format', format, '--to', files[i]));
    const first = await clientctl(args, env);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/W\d{4} .*trust.ts\] trust anchor "CN=formats-expired" .* left out\n/);
    expect(first.stderr).toContain(`wrote ${files.join(', ')}: 1 anchor,`);
    expect(readFileSync(files[0], 'utf8')).toBe(root.certPem);
    const want = readBundleCertificates(root.certPem).map((c) => hex(c.der));
    for (const [i, format] of (['jks', 'pkcs12', 'spiffe'] as const).entries()) {
      expect((await decodeTrustAnchors(readFileSync(files[i + 1]), format, format === 'jks' ? { password: 'changeit' } : {})).certificates.map((c) => hex(c.der))).toEqual(want);
    }
    const again = await clientctl(args, env);
    expect(again.stderr).toContain(`${files.join(', ')} are up to date`);
  });

  it('refuses --format and --to that do not pair, and an unknown format', async () => {
    const r = await clientctl(['trust', 'sync', '--signer', signer, '--format', 'jks', '--to', 'a', '--to', 'b', '--once'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: each --to needs its --format \(in the same order\): got 1 --format and 2 --to\n/);
    const bad = await clientctl(['trust', 'sync', '--signer', signer, '--format', 'der', '--to', 'a', '--once'], env);
    expect(bad.stderr).toBe('error: invalid argument "der" for "--format" flag: must be one of: pem, pkcs12, jks, spiffe\n');
  });
});

describe('clientctl trust serve', () => {
  it('needs --spiffe and the TLS files, and refuses a bad --listen, before any request', async () => {
    const base = ['trust', 'serve', '--signer', signer];
    expect((await clientctl(base, env)).stderr).toMatch(/^error: --spiffe is required: a SPIFFE bundle is the one format trust serve serves\n/);
    expect((await clientctl([...base, '--spiffe'], env)).stderr).toMatch(/^Error: required flag\(s\) "tls-cert-file" not set\n/);
    expect((await clientctl([...base, '--spiffe', '--listen', 'nope'], env)).stderr).toMatch(/^Error: invalid argument "nope" for "--listen" flag: must be HOST:PORT\n/);
  });
});
