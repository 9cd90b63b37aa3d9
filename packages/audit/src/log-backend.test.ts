import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { Registry } from 'prom-client';
import type { AuditEvent } from './event.js';
import { backupName, createLogBackend } from './log-backend.js';
import { createAuditMetrics, noAuditMetrics } from './metrics.js';

function event(i: number, body = ''): AuditEvent {
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Request',
    auditID: `id-${i}`,
    stage: 'ResponseComplete',
    requestURI: '/apis/certificates.plat.io/v1alpha1/clustertrustbundles',
    verb: 'create',
    user: { username: 'writer' },
    sourceIPs: ['127.0.0.1'],
    requestReceivedTimestamp: '2026-01-02T03:04:05.000000Z',
    stageTimestamp: '2026-01-02T03:04:05.000001Z',
    ...(body ? { requestObject: { body } } : {}),
  };
}

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-audit-log-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const lines = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '');

describe('log backend', () => {
  it('writes one JSON event per line, appending to what is there', async () => {
    const file = path.join(dir, 'audit.log');
    fs.writeFileSync(file, '{"earlier":true}\n');
    const log = createLogBackend({ path: file, metrics: noAuditMetrics });
    expect(log.processEvents([event(1), event(2)])).toBe(true);
    await log.shutdown();
    expect(lines(file).map((l) => JSON.parse(l))).toEqual([{ earlier: true }, event(1), event(2)]);
  });

  it('creates a new file readable by its owner only, as lumberjack does (0600)', async () => {
    const file = path.join(dir, 'new.log');
    const log = createLogBackend({ path: file, metrics: noAuditMetrics });
    log.processEvents([event(1)]);
    await log.shutdown();
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('writes the legacy format', async () => {
    const file = path.join(dir, 'audit.log');
    const log = createLogBackend({ path: file, format: 'legacy', metrics: noAuditMetrics });
    log.processEvents([event(1)]);
    await log.shutdown();
    expect(lines(file)).toEqual([expect.stringMatching(/^2026-01-02T03:04:05Z AUDIT: id="id-1" stage="ResponseComplete" ip="127.0.0.1" method="create" user="writer" /)]);
  });

  it('rotates by size into lumberjack-named backups and keeps --audit-log-maxbackup of them', async () => {
    const file = path.join(dir, 'audit.log');
    let t = Date.UTC(2026, 0, 2, 3, 4, 5);
    const log = createLogBackend({ path: file, maxSizeMB: 1, maxBackups: 2, maxAgeDays: 0, metrics: noAuditMetrics, now: () => new Date((t += 1000)) });
    // 300 KiB events: four to a file at most.
    for (let i = 0; i < 20; i++) expect(log.processEvents([event(i, 'A'.repeat(300 * 1024))])).toBe(true);
    await log.shutdown();
    const files = fs.readdirSync(dir).sort();
    expect(files).toHaveLength(3);
    expect(files[2]).toBe('audit.log');
    for (const f of files.slice(0, 2)) expect(f).toMatch(/^audit-2026-01-02T03-\d\d-\d\d\.000\.log$/);
    for (const f of files) expect(fs.statSync(path.join(dir, f)).size).toBeLessThanOrEqual(1024 * 1024);
    // Nothing lost between the current file and the kept backups, and nothing torn.
    const ids = files.flatMap((f) => lines(path.join(dir, f)).map((l) => (JSON.parse(l) as AuditEvent).auditID));
    expect(ids.at(-1)).toBe('id-19');
    expect(ids).toEqual([...ids].sort((a, b) => Number(a.slice(3)) - Number(b.slice(3))));
  });

  // A path that is not a regular file (here a named pipe, as a log shipper reads; /dev/null the
  // same) is written past the size limit and never renamed: renaming it would leave a backup of
  // the device and a regular file in its place. Not /dev/null itself: a failing run would break
  // the machine's.
  it.each([false, true])('never rotates a path that is not a regular file (a named pipe; background %s)', async (background) => {
    const fifo = path.join(dir, 'audit.log');
    execFileSync('mkfifo', [fifo]);
    const out = path.join(dir, 'read.out');
    // The reader runs in a process of its own: a write into a full pipe waits for it.
    const reader = spawn('sh', ['-c', 'cat "$0" > "$1"', fifo, out], { stdio: 'ignore' });
    const readerDone = new Promise((resolve) => reader.once('exit', resolve));
    const log = createLogBackend({ path: fifo, maxSizeMB: 1, maxBackups: 1, maxAgeDays: 0, metrics: noAuditMetrics, background });
    // 300 KiB events: a regular file would have rotated four times.
    for (let i = 0; i < 20; i++) expect(log.processEvents([event(i, 'C'.repeat(300 * 1024))])).toBe(true);
    await log.shutdown();
    await readerDone;
    expect(fs.readdirSync(dir).sort()).toEqual(['audit.log', 'read.out']);
    expect(fs.statSync(fifo).isFIFO()).toBe(true);
    expect(lines(out).map((l) => (JSON.parse(l) as AuditEvent).auditID)).toEqual(Array.from({ length: 20 }, (_, i) => `id-${i}`));
  });

  it('gzips rotated files with compress (--audit-log-compress), counting them as backups', async () => {
    const file = path.join(dir, 'audit.log');
    let t = Date.UTC(2026, 0, 2, 3, 4, 5);
    const log = createLogBackend({ path: file, maxSizeMB: 1, maxBackups: 2, maxAgeDays: 0, compress: true, metrics: noAuditMetrics, now: () => new Date((t += 1000)) });
    for (let i = 0; i < 20; i++) expect(log.processEvents([event(i, 'A'.repeat(300 * 1024))])).toBe(true);
    await log.shutdown();
    const files = fs.readdirSync(dir).sort();
    expect(files).toHaveLength(3);
    for (const f of files.slice(0, 2)) expect(f).toMatch(/^audit-2026-01-02T03-\d\d-\d\d\.000\.log\.gz$/);
    for (const f of files.slice(0, 2)) expect(fs.statSync(path.join(dir, f)).mode & 0o777).toBe(0o600);
    // Each backup holds whole lines, and the newest backup ends where the current file begins.
    const backupIds = files.slice(0, 2).flatMap((f) =>
      zlib
        .gunzipSync(fs.readFileSync(path.join(dir, f)))
        .toString('utf8')
        .trimEnd()
        .split('\n')
        .map((l) => Number((JSON.parse(l) as AuditEvent).auditID.slice(3))),
    );
    const currentIds = lines(file).map((l) => Number((JSON.parse(l) as AuditEvent).auditID.slice(3)));
    expect(backupIds.at(-1)! + 1).toBe(currentIds[0]);
    expect(currentIds.at(-1)).toBe(19);
  });

  it('names backups as lumberjack does', () => {
    expect(backupName('/var/log/audit.log', new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 67)))).toBe('/var/log/audit-2026-01-02T03-04-05.067.log');
    expect(backupName('/var/log/audit', new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 67)))).toBe('/var/log/audit-2026-01-02T03-04-05.067');
  });

  it('opens the file again after another tool deletes or renames it', async () => {
    const file = path.join(dir, 'audit.log');
    const log = createLogBackend({ path: file, metrics: noAuditMetrics });
    log.processEvents([event(1)]);
    fs.renameSync(file, `${file}.1`); // logrotate's default (create) mode
    log.processEvents([event(2)]);
    fs.unlinkSync(file);
    log.processEvents([event(3)]);
    await log.shutdown();
    expect(lines(`${file}.1`).map((l) => (JSON.parse(l) as AuditEvent).auditID)).toEqual(['id-1']);
    expect(lines(file).map((l) => (JSON.parse(l) as AuditEvent).auditID)).toEqual(['id-3']);
  });

  it('never interleaves lines when many requests and two writers share the file', async () => {
    const file = path.join(dir, 'audit.log');
    const a = createLogBackend({ path: file, metrics: noAuditMetrics });
    const b = createLogBackend({ path: file, metrics: noAuditMetrics });
    await Promise.all(
      Array.from({ length: 400 }, async (_, i) => {
        await new Promise((r) => setImmediate(r));
        (i % 2 ? a : b).processEvents([event(i, 'x'.repeat(i * 37))]);
      }),
    );
    await Promise.all([a.shutdown(), b.shutdown()]);
    const parsed = lines(file).map((l) => JSON.parse(l) as AuditEvent);
    expect(parsed).toHaveLength(400);
    expect(new Set(parsed.map((e) => e.auditID)).size).toBe(400);
  });

  it('in the background (batch mode) writes later, in order, whole lines, and rotates the same way', async () => {
    const file = path.join(dir, 'audit.log');
    const log = createLogBackend({ path: file, maxSizeMB: 1, maxBackups: 0, maxAgeDays: 0, metrics: noAuditMetrics, background: true });
    for (let i = 0; i < 12; i++) expect(log.processEvents([event(i, 'B'.repeat(200 * 1024))])).toBe(true);
    // Handed over, not yet written: the caller did not wait for the disk.
    const early = fs.existsSync(file) ? lines(file).length : 0;
    expect(early).toBeLessThan(12);
    await log.shutdown();
    const files = fs.readdirSync(dir).sort();
    expect(files.length).toBeGreaterThan(1);
    const ids = files.flatMap((f) => lines(path.join(dir, f)).map((l) => (JSON.parse(l) as AuditEvent).auditID));
    expect(ids).toEqual(Array.from({ length: 12 }, (_, i) => `id-${i}`));
    for (const f of files) expect(fs.statSync(path.join(dir, f)).size).toBeLessThanOrEqual(1024 * 1024);
  });

  it('in the background writes each line as JSON.stringify does, whether encoded into the slab or as a string', async () => {
    const file = path.join(dir, 'audit.log');
    const log = createLogBackend({ path: file, metrics: noAuditMetrics, background: true });
    const events: AuditEvent[] = [];
    for (let i = 0; i < 6; i++) {
      // Metadata events (straight into the slab), one with a request object, one with a non-ASCII URI and user (as strings).
      const ev = event(i, i === 2 ? 'body' : '');
      ev.level = 'Metadata';
      if (i === 4) {
        ev.requestURI = '/apis/x/é';
        ev.user = { username: 'zoë "q"' };
      }
      events.push(ev);
      expect(log.processEvents([ev])).toBe(true);
    }
    await log.shutdown();
    expect(lines(file)).toEqual(events.map((ev) => JSON.stringify(ev)));
  });

  const hasDevFull = fs.existsSync('/dev/full');
  (hasDevFull ? it : it.skip)('in the background counts a failed write once it fails (/dev/full)', async () => {
    const registry = new Registry();
    const log = createLogBackend({ path: '/dev/full', metrics: createAuditMetrics(registry), background: true });
    expect(log.processEvents([event(1), event(2), event(3)])).toBe(true);
    await log.shutdown();
    expect(await registry.metrics()).toMatch(/^apiserver_audit_error_total\{plugin="log"\} 3$/m);
  });

  (hasDevFull ? it : it.skip)('answers false and counts the error when the disk is full (/dev/full)', async () => {
    const registry = new Registry();
    const errors: Error[] = [];
    const log = createLogBackend({ path: '/dev/full', metrics: createAuditMetrics(registry), onError: (e) => errors.push(e) });
    expect(log.processEvents([event(1), event(2)])).toBe(false);
    await log.shutdown();
    expect((errors[0] as NodeJS.ErrnoException).code).toBe('ENOSPC');
    expect(await registry.metrics()).toMatch(/^apiserver_audit_error_total\{plugin="log"\} 2$/m);
  });
});
