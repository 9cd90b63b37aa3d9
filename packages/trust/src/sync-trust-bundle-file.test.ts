import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { canonicalTrustBundle, type PemKeyPair } from '@plat/x509';
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
