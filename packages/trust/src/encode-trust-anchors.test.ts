import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { canonicalTrustBundle, createCertificateAuthority, issueServingCertificate, readBundleCertificates, type PemKeyPair } from '@plat/x509';
import { hasTool, keytoolAliases, run } from '../test/system-tools.js';
import { decodeTrustAnchors } from './decode-trust-anchors.js';
import { encodeTrustAnchors } from './encode-trust-anchors.js';
import type { TrustAnchors } from './trust-anchors.js';
import { truststoreAlias } from './truststore-entries.js';

let dir: string;
let anchors: TrustAnchors;
let aliases: string[];
let cas: PemKeyPair[];
const keytool = hasTool('keytool');
const java = hasTool('java');
const openssl = hasTool('openssl');

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'trust-formats-'));
  cas = await Promise.all(['Mesh CA 2025', 'mesh-ca-2026', 'Ünïcode, Root'].map((commonName) => createCertificateAuthority({ commonName })));
  const c = canonicalTrustBundle(cas.map((ca) => ca.certPem));
  anchors = { pem: c.pem, digest: c.digest, anchors: c.anchors, sources: [] };
  aliases = c.anchors.map((a) => truststoreAlias(a.subject, a.sha256));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function file(name: string, bytes: Uint8Array): Promise<string> {
  const p = path.join(dir, name);
  writeFileSync(p, bytes);
  return p;
}

describe('aliases', () => {
  it('are the lower-cased CN with non-name characters as one dash, then 8 hex of the SHA-256', () => {
    expect(truststoreAlias('CN=Mesh CA 2025,O=Example', 'abcdef0123456789')).toBe('mesh-ca-2025-abcdef01');
    expect(truststoreAlias('CN=a\\,b+OU=x,O=Example', '0011223344556677')).toBe('a-b-00112233');
    expect(truststoreAlias('O=No CN', '0011223344556677')).toBe('anchor-00112233');
    expect(truststoreAlias('CN=Ünïcode\\, Root', 'ff11223344556677')).toBe('ünïcode-root-ff112233');
  });
});

describe('keytool reads our keystores (Java 17)', () => {
  const maybe = keytool ? it : it.skip;

  maybe('lists exactly the canonical anchors of a JKS store with the default password changeit', async () => {
    const p = await file('a.jks', await encodeTrustAnchors(anchors, 'jks'));
    const r = await run('keytool', ['-list', '-keystore', p, '-storetype', 'JKS', '-storepass', 'changeit']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('Your keystore contains 3 entries');
    // keytool lists in its hash order: the set is what counts.
    expect(keytoolAliases(r.stdout).sort()).toEqual([...aliases].sort());
    // A wrong password is refused: the integrity digest covers the password.
    const bad = await run('keytool', ['-list', '-keystore', p, '-storetype', 'JKS', '-storepass', 'wrong-one']);
    expect(bad.code).not.toBe(0);
    expect(bad.stdout + bad.stderr).toContain('password was incorrect');
  }, 60_000); // each starts one or two JVMs, seconds apiece on a loaded CI machine

  maybe('lists the anchors of a PKCS#12 store with a password, its fingerprints those of the PEM', async () => {
    const p = await file('a.p12', await encodeTrustAnchors(anchors, 'pkcs12', { password: 's3cret pass' }));
    const r = await run('keytool', ['-list', '-v', '-keystore', p, '-storetype', 'PKCS12', '-storepass', 's3cret pass']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Your keystore contains 3 entries');
    const listed = [...r.stdout.matchAll(/^Alias name: (.*)$/gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual([...aliases].sort());
    const fingerprints = [...r.stdout.matchAll(/SHA256: ([0-9A-F:]+)/g)].map((m) => m[1].replaceAll(':', '').toLowerCase());
    expect(fingerprints.sort()).toEqual(anchors.anchors.map((a) => a.sha256).sort());
    expect(r.stdout).toContain('Entry type: trustedCertEntry');
  }, 60_000); // each starts one or two JVMs, seconds apiece on a loaded CI machine

  maybe('lists the anchors of the legacy and the password-less PKCS#12 stores', async () => {
    const legacy = await file('legacy.p12', await encodeTrustAnchors(anchors, 'pkcs12', { password: 'changeit', legacy: true }));
    const r1 = await run('keytool', ['-list', '-keystore', legacy, '-storetype', 'PKCS12', '-storepass', 'changeit']);
    expect(r1.code).toBe(0);
    expect(keytoolAliases(r1.stdout).sort()).toEqual([...aliases].sort());
    // Java 17's keytool reads a store without MAC and without encryption whatever password it is given
    // (it warns that integrity is not checked), as Java 18+ writes truststores by default.
    const none = await file('nopass.p12', await encodeTrustAnchors(anchors, 'pkcs12'));
    const r2 = await run('keytool', ['-list', '-keystore', none, '-storetype', 'PKCS12', '-storepass', 'anything']);
    expect(r2.code).toBe(0);
    expect(keytoolAliases(r2.stdout).sort()).toEqual([...aliases].sort());
  }, 60_000); // each starts one or two JVMs, seconds apiece on a loaded CI machine
});

describe('a Java 17 HTTPS client with our truststores', () => {
  const maybe = java ? it : it.skip;
  const servers: Server[] = [];
  afterAll(async () => {
    for (const s of servers) await new Promise((r) => s.close(r));
  });
  async function serve(issuer: PemKeyPair): Promise<string> {
    const leaf = await issueServingCertificate(issuer, { commonName: 'localhost', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    const server = createServer({ cert: leaf.certPem, key: leaf.keyPem }, (_req, res) => res.end('ok'));
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return `https://localhost:${(server.address() as AddressInfo).port}/`;
  }

  maybe('trusts a server whose CA is an anchor and rejects one whose CA is not, with each store (one JVM)', async () => {
    const inBundle = await serve(cas[0]);
    const outside = await serve(await createCertificateAuthority({ commonName: 'not-an-anchor' }));
    const jks = await file('java.jks', await encodeTrustAnchors(anchors, 'jks'));
    const stores = [
      ['-', '', ''], // -Djavax.net.ssl.trustStore: the JKS store
      [await file('java.p12', await encodeTrustAnchors(anchors, 'pkcs12', { password: 'pw' })), 'PKCS12', 'pw'],
      [await file('java-legacy.p12', await encodeTrustAnchors(anchors, 'pkcs12', { password: 'pw', legacy: true })), 'PKCS12', 'pw'],
      [await file('java-nopass.p12', await encodeTrustAnchors(anchors, 'pkcs12')), 'PKCS12', ''],
    ];
    const args = stores.flatMap(([store, type, pw]) => [`${store}|${type}|${pw}|${inBundle}`, `${store}|${type}|${pw}|${outside}`]);
    const r = await run('java', [`-Djavax.net.ssl.trustStore=${jks}`, '-Djavax.net.ssl.trustStoreType=JKS', '-Djavax.net.ssl.trustStorePassword=changeit', path.join(import.meta.dirname, '../test/TrustCheck.java'), ...args]);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(args.length);
    args.forEach((arg, i) => {
      if (arg.endsWith(inBundle)) expect(lines[i]).toBe(`trusted 200 ${arg}`);
      else expect(lines[i]).toMatch(new RegExp(`^rejected ${arg.replaceAll('|', '\\|')}: PKIX path building failed`));
    });
  }, 60_000);
});

describe('openssl pkcs12 -info reads our PKCS#12 stores (OpenSSL 3)', () => {
  const maybe = openssl ? it : it.skip;
  const certsOf = (stdout: string) => readBundleCertificates(stdout).map((c) => c.sha256).sort();
  const expected = () => anchors.anchors.map((a) => a.sha256).sort();

  maybe('default store: PBES2 with AES-256-CBC and PBKDF2-HMAC-SHA-256, MAC SHA-256', async () => {
    const p = await file('o.p12', await encodeTrustAnchors(anchors, 'pkcs12', { password: 'pw' }));
    const r = await run('openssl', ['pkcs12', '-info', '-nokeys', '-in', p, '-passin', 'pass:pw']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('MAC: sha256, Iteration 10000');
    expect(r.stderr).toContain('PBES2, PBKDF2, AES-256-CBC, Iteration 10000, PRF hmacWithSHA256');
    expect(certsOf(r.stdout)).toEqual(expected());
    // OpenSSL 3.0 prints a BMPString friendlyName byte by byte (ü comes out as one Latin-1 byte), so check an ASCII one.
    const asciiAlias = aliases.find((a) => /^[\x20-\x7e]+$/.test(a));
    expect(r.stdout).toContain(`friendlyName: ${asciiAlias}`);
    const wrong = await run('openssl', ['pkcs12', '-info', '-nokeys', '-in', p, '-passin', 'pass:nope']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('Mac verify error');
  });

  maybe('legacy store: 3DES and a SHA-1 MAC, read with and without -legacy', async () => {
    const p = await file('l.p12', await encodeTrustAnchors(anchors, 'pkcs12', { password: 'pw', legacy: true }));
    for (const extra of [[], ['-legacy']]) {
      const r = await run('openssl', ['pkcs12', '-info', '-nokeys', '-in', p, '-passin', 'pass:pw', ...extra]);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain('MAC: sha1, Iteration 2048');
      expect(r.stderr).toContain('pbeWithSHA1And3-KeyTripleDES-CBC, Iteration 2048');
      expect(certsOf(r.stdout)).toEqual(expected());
    }
  });

  maybe('password-less store: no MAC, certificates in the clear', async () => {
    const p = await file('n.p12', await encodeTrustAnchors(anchors, 'pkcs12'));
    const r = await run('openssl', ['pkcs12', '-info', '-nokeys', '-in', p, '-passin', 'pass:', '-nomacver']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('PKCS7 Data');
    expect(r.stderr).not.toContain('Encrypted');
    expect(certsOf(r.stdout)).toEqual(expected());
  });
});

describe('spiffe', () => {
  it('has the spec members: keys of use x509-svid with kty, key parameters and one x5c equal to the PEM DER', async () => {
    const bytes = await encodeTrustAnchors(anchors, 'spiffe', { spiffeSequence: 7, spiffeRefreshHintSeconds: 60 });
    const doc = JSON.parse(Buffer.from(bytes).toString('utf8')) as { keys: Record<string, unknown>[]; spiffe_sequence: number; spiffe_refresh_hint: number };
    expect(doc.spiffe_sequence).toBe(7);
    expect(doc.spiffe_refresh_hint).toBe(60);
    const ders = readBundleCertificates(anchors.pem).map((c) => Buffer.from(c.der).toString('base64'));
    expect(doc.keys.map((k) => (k.x5c as string[])[0])).toEqual(ders);
    for (const k of doc.keys) {
      expect(k).toMatchObject({ use: 'x509-svid', kty: 'EC', crv: 'P-256' });
      expect(Object.keys(k).sort()).toEqual(['crv', 'kty', 'use', 'x', 'x5c', 'y']);
      // The key parameters are those of the certificate's own key.
      const cert = new X509Certificate(Buffer.from((k.x5c as string[])[0], 'base64'));
      expect(cert.publicKey.export({ format: 'jwk' })).toEqual({ kty: k.kty, crv: k.crv, x: k.x, y: k.y });
    }
  });

  it('rejects documents without keys, kty or with more than one x5c certificate, and ignores other uses', async () => {
    const text = (doc: unknown) => Buffer.from(JSON.stringify(doc));
    await expect(decodeTrustAnchors(text({}), 'spiffe')).rejects.toMatchObject({ code: 'DecodeFailed', message: 'not a SPIFFE bundle: "keys" must be an array' });
    await expect(decodeTrustAnchors(text({ keys: [{ use: 'x509-svid', x5c: ['AA=='] }] }), 'spiffe')).rejects.toThrow('keys[0]: "kty" must be set');
    await expect(decodeTrustAnchors(text({ keys: [{ kty: 'EC', use: 'x509-svid', x5c: ['AA==', 'AA=='] }] }), 'spiffe')).rejects.toThrow('"x5c" must hold exactly one certificate');
    expect((await decodeTrustAnchors(text({ keys: [{ kty: 'EC', use: 'jwt-svid', kid: 'k' }], spiffe_sequence: 3 }), 'spiffe'))).toEqual({ certificates: [], spiffeSequence: 3 });
  });
});
