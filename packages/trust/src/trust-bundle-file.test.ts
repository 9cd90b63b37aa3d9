import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readTrustBundleFile, writeTrustBundleFile } from './trust-bundle-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'trust-file-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('writeTrustBundleFile', () => {
  it('replaces the file by rename with mode 0644 whatever the umask, leaving no temporary file', async () => {
    const file = path.join(dir, 'ca.pem');
    writeFileSync(file, 'old', { mode: 0o600 });
    const before = statSync(file).ino;
    const umask = process.umask(0o077);
    try {
      await writeTrustBundleFile(file, 'new anchors\n');
    } finally {
      process.umask(umask);
    }
    expect(await readTrustBundleFile(file)).toBe('new anchors\n');
    const after = statSync(file);
    expect(after.mode & 0o777).toBe(0o644);
    // A new inode: readers holding the old file keep reading the old bundle, whole.
    expect(after.ino).not.toBe(before);
    expect(readdirSync(dir)).toEqual(['ca.pem']);
  });

  it('refuses a path that is not a regular file (a named pipe, a directory) and leaves it as it was', async () => {
    const fifo = path.join(dir, 'pipe.pem');
    execFileSync('mkfifo', [fifo]);
    const sub = path.join(dir, 'sub.pem');
    mkdirSync(sub);
    for (const target of [fifo, sub]) {
      await expect(writeTrustBundleFile(target, 'x')).rejects.toMatchObject({ name: 'TrustError', code: 'FileFailed', message: `unable to write ${target}: not a regular file` });
    }
    // Nor read first (as a sync does before it writes): a named pipe's read would wait for a writer.
    await expect(readTrustBundleFile(fifo)).rejects.toMatchObject({ code: 'FileFailed', message: `unable to read ${fifo}: not a regular file` });
    expect(statSync(fifo).isFIFO()).toBe(true);
    expect(statSync(sub).isDirectory()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['pipe.pem', 'sub.pem']);
  });

  it('fails with TrustError FileFailed when the directory does not exist', async () => {
    await expect(writeTrustBundleFile(path.join(dir, 'missing', 'ca.pem'), 'x')).rejects.toMatchObject({
      name: 'TrustError',
      code: 'FileFailed',
      message: expect.stringContaining(`unable to write ${path.join(dir, 'missing', 'ca.pem')}`),
    });
  });
});

describe('readTrustBundleFile', () => {
  it('answers undefined for a missing file and FileFailed for a directory', async () => {
    expect(await readTrustBundleFile(path.join(dir, 'nope.pem'))).toBeUndefined();
    await expect(readTrustBundleFile(dir)).rejects.toMatchObject({ code: 'FileFailed' });
  });
});
