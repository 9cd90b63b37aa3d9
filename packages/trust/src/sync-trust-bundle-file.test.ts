import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { canonicalTrustBundle, createCertificate, type PemKeyPair } from '@plat/x509';
import { decodeTrustAnchors } from './decode-trust-anchors.js';
import { eventually, openWatch, sendList, startScriptedServer, threeCas, type Bundle, type ScriptedServer } from '../test/scripted-server.js';
import { readTrustBundleFile } from './trust-bundle-file.js';
import { syncTrustBundleFile, writeTrustBundleFileOnce } from './sync-trust-bundle-file.js';

let server: ScriptedServer;
let a: PemKeyPair, b: PemKeyPair;
let dir: string;
const one = (pem: string, rv: string, labels?: Record<string, string>): Bundle => ({ name: 'roots', resourceVersion: rv, pem, labels });

beforeAll(async () => {
  [server, [a, b]] = await Promise.all([startScriptedServer(), threeCas()]);
});
afterAll(() => server.close());
beforeEach(() => server.nextTest());
// A test that fails half-way must not leave its watch retrying into the next test.
const liveWatches: AbortController[] = [];
afterEach(() => {
  for (const c of liveWatches.splice(0)) c.abort();
});
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'trust-sync-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('syncTrustBundleFile', () => {
  it('writes the canonical PEM, rewrites it only when the anchors change, and runs onWrite after each write', async () => {
    const file = path.join(dir, 'ca.pem');
    let stream: ReturnType<typeof openWatch> | undefined;
    server.handler = (_req, res, url) => {
      if (url.searchParams.get('watch') !== 'true') return sendList(res, '10', [one(a.certPem, '10')]);
      stream = openWatch(res);
    };
    const controller = new AbortController();
    liveWatches.push(controller);
    const writes: string[] = [];
    const errors: Error[] = [];
    const done = syncTrustBundleFile(server.client(), { name: 'roots' }, {
      file,
      signal: controller.signal,
      onWrite: (x) => {
        writes.push(x.digest);
        if (writes.length === 2) throw new Error('reload failed');
      },
      onError: (e) => void errors.push(e),
    });
    await eventually(() => stream !== undefined && writes.length === 1);
    expect(await readTrustBundleFile(file)).toBe(canonicalTrustBundle([a.certPem]).pem);
    const firstInode = statSync(file).ino;
    // Labels only: no write.
    stream!.bundle('MODIFIED', one(a.certPem, '11', { team: 'x' }));
    stream!.bundle('MODIFIED', one(a.certPem + b.certPem, '12'));
    await eventually(() => writes.length === 2);
    expect(await readTrustBundleFile(file)).toBe(canonicalTrustBundle([a.certPem, b.certPem]).pem);
    expect(statSync(file).ino).not.toBe(firstInode);
    // A failing onWrite is reported and the sync goes on.
    await eventually(() => errors.length === 1);
    expect(errors[0].message).toBe('reload failed');
    stream!.bundle('MODIFIED', one(b.certPem, '13'));
    await eventually(() => writes.length === 3);
    controller.abort();
    await expect(done).resolves.toBeUndefined();
  });

  it('leaves a file that already holds the anchors untouched at start', async () => {
    const file = path.join(dir, 'ca.pem');
    writeFileSync(file, canonicalTrustBundle([a.certPem]).pem, { mode: 0o600 });
    let watching = false;
    server.handler = (_req, res, url) => {
      if (url.searchParams.get('watch') !== 'true') return sendList(res, '10', [one(a.certPem, '10')]);
      openWatch(res);
      watching = true;
    };
    const controller = new AbortController();
    liveWatches.push(controller);
    let wrote = 0;
    const done = syncTrustBundleFile(server.client(), { name: 'roots' }, { file, signal: controller.signal, onWrite: () => void wrote++ });
    await eventually(() => watching);
    controller.abort();
    await done;
    expect(wrote).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('ends with FileFailed when the file cannot be written', async () => {
    server.handler = (_req, res, url) => (url.searchParams.get('watch') !== 'true' ? sendList(res, '10', [one(a.certPem, '10')]) : void openWatch(res));
    await expect(syncTrustBundleFile(server.client(), { name: 'roots' }, { file: path.join(dir, 'no', 'ca.pem') })).rejects.toMatchObject({ code: 'FileFailed' });
  });
});

describe('syncTrustBundleFile with formats and a filter', () => {
  const expiringCa = (inMs: number, commonName: string) =>
    createCertificate({ commonName, basicConstraints: 'ca', keyUsage: ['keyCertSign'], validityDays: 1, notBefore: new Date(Date.now() - 5 * 60_000 - 86_400_000 + inMs) });

  it('keeps PEM, JKS, PKCS#12 and SPIFFE files from one watch; a store holding the anchors is not rewritten; the SPIFFE sequence increases', async () => {
    let stream: ReturnType<typeof openWatch> | undefined;
    let watches = 0;
    server.handler = (_req, res, url) => {
      if (url.searchParams.get('watch') !== 'true') return sendList(res, '10', [one(a.certPem, '10')]);
      watches++;
      stream = openWatch(res);
    };
    const targets = [
      { file: path.join(dir, 'ca.pem') },
      { file: path.join(dir, 'ca.jks'), format: 'jks' as const },
      { file: path.join(dir, 'ca.p12'), format: 'pkcs12' as const, password: 'pw', iterations: 3 },
      { file: path.join(dir, 'bundle.json'), format: 'spiffe' as const },
    ];
    const run = (onWrite: (n: number) => void) => {
      const controller = new AbortController();
      liveWatches.push(controller);
      const done = syncTrustBundleFile(server.client(), { name: 'roots' }, { targets, signal: controller.signal, onWrite: (_x, written) => onWrite(written.length) });
      return { controller, done };
    };
    const writes: number[] = [];
    const first = run((n) => writes.push(n));
    await eventually(() => stream !== undefined && writes.length === 1);
    expect(writes).toEqual([4]);
    const read = async (i: number) => decodeTrustAnchors(readFileSync(targets[i].file), targets[i].format ?? 'pem', targets[i]);
    const seq1 = (await read(3)).spiffeSequence!;
    stream!.bundle('MODIFIED', one(a.certPem + b.certPem, '11'));
    await eventually(() => writes.length === 2);
    expect(writes[1]).toBe(4);
    for (let i = 0; i < 4; i++) expect((await read(i)).certificates).toHaveLength(2);
    expect((await read(3)).spiffeSequence).toBeGreaterThan(seq1);
    expect(watches).toBe(1);
    first.controller.abort();
    await first.done;
    // A new sync finds every file current: the PKCS#12 store (random salts) is compared by content.
    const inodes = targets.map((t) => statSync(t.file).ino);
    stream = undefined;
    const again: number[] = [];
    const second = run((n) => again.push(n));
    server.handler = (_req, res, url) => (url.searchParams.get('watch') !== 'true' ? sendList(res, '12', [one(a.certPem + b.certPem, '11')]) : void (stream = openWatch(res)));
    await eventually(() => stream !== undefined);
    second.controller.abort();
    await second.done;
    expect(again).toEqual([]);
    expect(targets.map((t) => statSync(t.file).ino)).toEqual(inodes);
  });

  it('with excludeExpired leaves expired anchors out, naming them, and drops an anchor when it expires', async () => {
    // soon-root's 4 s run from here, so the first write (list, filter, write) must come within them:
    // 1.5 s was too short for a CI machine whose jest workers share 2 CPUs with the other projects'.
    const [expired, soon] = await Promise.all([expiringCa(-60_000, 'old-root'), expiringCa(4_000, 'soon-root')]);
    server.handler = (_req, res, url) => (url.searchParams.get('watch') !== 'true' ? sendList(res, '10', [one(a.certPem + expired.certPem + soon.certPem, '10')]) : void openWatch(res));
    const controller = new AbortController();
    liveWatches.push(controller);
    const file = path.join(dir, 'ca.pem');
    const warnings: string[] = [];
    const written: string[] = [];
    const done = syncTrustBundleFile(server.client(), { name: 'roots' }, {
      file,
      filter: { excludeExpired: true, minRemainingMs: 3_600_000 },
      signal: controller.signal,
      onWarning: (w) => void warnings.push(w),
      onWrite: (x) => void written.push(x.anchors.map((y) => y.subject).sort().join(' ')),
    });
    await eventually(() => written.length === 1);
    expect(written[0]).toBe(['CN=trust-test-ca-1', 'CN=soon-root'].sort().join(' '));
    expect(warnings[0]).toMatch(/^trust anchor "CN=old-root" \(sha256 [0-9a-f]{16}\) expired at .*: left out$/);
    expect(warnings[1]).toMatch(/^trust anchor "CN=soon-root" \(sha256 [0-9a-f]{16}\) expires at .*, within the minimum remaining time$/);
    // No change on the server: the timer drops soon-root when it expires.
    await eventually(() => written.length === 2, 15_000);
    expect(written[1]).toBe('CN=trust-test-ca-1');
    expect(await readTrustBundleFile(file)).toBe(canonicalTrustBundle([a.certPem]).pem);
    controller.abort();
    await done;
  }, 30_000);
});

describe('writeTrustBundleFileOnce', () => {
  it('resolves once and writes only when the content differs', async () => {
    server.handler = (_req, res) => sendList(res, '10', [{ ...one(a.certPem, '10'), name: 'example.com:s:roots', signerName: 'example.com/s' }]);
    const file = path.join(dir, 'ca.pem');
    const first = await writeTrustBundleFileOnce(server.client(), { signerName: 'example.com/s', labelSelector: {} }, { file });
    expect(first.written).toBe(true);
    expect(await readTrustBundleFile(file)).toBe(first.anchors.pem);
    const second = await writeTrustBundleFileOnce(server.client(), { signerName: 'example.com/s', labelSelector: {} }, { file });
    expect(second.written).toBe(false);
  });
});
