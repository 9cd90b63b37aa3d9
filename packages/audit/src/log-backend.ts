/**
 * The log backend (k8s.io/apiserver `plugin/pkg/audit/log/backend.go`): one event per line, as
 * JSON or the legacy text, to a file or stdout (`-`). The file rotates by size as kube-apiserver's
 * lumberjack writer does (`<name>-<UTC time>.<ext>` backups, gzip-compressed with
 * `--audit-log-compress`, `--audit-log-maxbackup` kept, `--audit-log-maxage` days).
 *
 * Each call is one synchronous write of whole lines, so lines are never interleaved or torn (a
 * short write, as on a full disk, is truncated away before the failure is reported). A file
 * deleted or renamed by another tool is noticed on the next write and opened again.
 *
 * Only a regular file rotates. A path that names anything else (`/dev/null`, a named pipe a log
 * shipper reads, `/dev/stdout`) is written and never renamed or replaced: lumberjack counts the
 * bytes it wrote and renames whatever the path is once they pass the limit, which turns
 * `/dev/null` into a backup and a regular file in its place (Python's logging fixed the same bug
 * in its rotating handlers, bpo-45401).
 */
import { closeSync, createReadStream, createWriteStream, existsSync, fstatSync, ftruncate, ftruncateSync, openSync, readdirSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { basename, dirname, extname, join } from 'node:path';
import type { AuditBackend } from './backend.js';
import { BackgroundWriter, writeChunks } from './background-writer.js';
import { eventString } from './event.js';
import { encodeEventInto, encodeEventJson } from './event-json.js';
import type { AuditMetrics } from './metrics.js';

export type AuditLogFormat = 'json' | 'legacy';

export interface LogBackendOptions {
  /** A file path, or `-` for standard output. */
  path: string;
  format?: AuditLogFormat;
  /** Megabytes before the file rotates; 0 never rotates. Kubernetes' default is 100. */
  maxSizeMB?: number;
  /** Rotated files kept; 0 keeps all. */
  maxBackups?: number;
  /** Days a rotated file is kept; 0 keeps them regardless of age. */
  maxAgeDays?: number;
  /** Rotated files are compressed with gzip (`<backup>.gz`), as lumberjack's Compress. */
  compress?: boolean;
  metrics: AuditMetrics;
  /** Where write failures are reported (besides the error metric). */
  onError?: (err: Error) => void;
  /** For tests: the clock rotation names backups by. */
  now?: () => Date;
  /**
   * Batch mode: write in the background (libuv's thread pool), one write at a time, so that a slow
   * disk never holds the event loop; lines wait in memory meanwhile, at most
   * {@link maxQueuedLogBytes}. Blocking modes write synchronously.
   */
  background?: boolean;
}

/** Bytes of lines waiting for a background write; past it new events are dropped and counted. */
export const maxQueuedLogBytes = 64 * 1024 * 1024;

const megabyte = 1024 * 1024;


/** lumberjack's backup name: `audit-2006-01-02T15-04-05.000.log` for `audit.log`. */
export function backupName(path: string, time: Date): string {
  const ext = extname(path);
  const prefix = basename(path, ext);
  const stamp = time.toISOString().replace(/:/g, '-').replace(/Z$/, '');
  return join(dirname(path), `${prefix}-${stamp}${ext}`);
}

class LogFile {
  private fd = -1;
  private ino = 0;
  private dev = 0;
  private size = 0;
  /** The path is a regular file: only such a file rotates. */
  private regular = true;
  /** Backups being compressed, one after the other, off the event loop (zlib runs in libuv's pool). */
  private compressing: Promise<void> = Promise.resolve();

  constructor(
    private readonly path: string,
    private readonly maxBytes: number,
    private readonly maxBackups: number,
    private readonly maxAgeDays: number,
    private readonly now: () => Date,
    private readonly compress: boolean,
    private readonly onError: (err: Error) => void,
  ) {}

  /** Resolves once the backups rotated so far are compressed. */
  async compressed(): Promise<void> {
    await this.compressing;
  }

  /**
   * Writes `text` whole or not at all; throws on failure. The string goes to the kernel as it is:
   * a Buffer made of a batch's lines first cost more than encoding the events (it is allocated
   * outside V8's heap and counted towards its collections).
   */
  write(text: string): void {
    const length = Buffer.byteLength(text);
    this.ensureOpen();
    if (this.rotatesBefore(length)) this.rotate();
    const before = this.size;
    let written = 0;
    try {
      written = writeSync(this.fd, text);
      if (written < length) {
        const data = Buffer.from(text);
        while (written < length) written += writeSync(this.fd, data, written, length - written);
      }
    } catch (err) {
      // Nothing half-written: cut the partial line off again.
      if (written > 0) {
        try {
          ftruncateSync(this.fd, before);
        } catch {
          // The write error below is what matters.
        }
      }
      throw err;
    }
    this.size += written;
  }

  /** The same as write(), for chunks written in the background; resolves when they are all on file. */
  writeInBackground(chunks: readonly Buffer[]): Promise<void> {
    const length = chunks.reduce((n, c) => n + c.length, 0);
    this.ensureOpen();
    if (this.rotatesBefore(length)) this.rotate();
    const fd = this.fd;
    const before = this.size;
    // Counted now: a later write (after this one completes) rotates on the right size.
    this.size += length;
    return new Promise((resolve, reject) =>
      writeChunks(fd, chunks, (err, written) => {
        if (!err) return resolve();
        this.size = before;
        // Nothing half-written: cut the partial line off again.
        if (written > 0) ftruncate(fd, before, () => reject(err));
        else reject(err);
      }),
    );
  }

  /** Whether `length` more bytes would take a regular file past its size limit (a file with something in it). */
  private rotatesBefore(length: number): boolean {
    return this.regular && this.maxBytes > 0 && this.size > 0 && this.size + length > this.maxBytes;
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }

  private ensureOpen(): void {
    if (this.fd >= 0) {
      // Deleted or moved away (logrotate, an operator): open the path again.
      let current;
      try {
        current = statSync(this.path);
      } catch {
        current = undefined;
      }
      if (current && current.ino === this.ino && current.dev === this.dev) return;
      this.close();
    }
    this.fd = openSync(this.path, 'a', 0o600);
    const st = fstatSync(this.fd);
    this.ino = st.ino;
    this.dev = st.dev;
    this.size = st.size;
    this.regular = st.isFile();
  }

  private rotate(): void {
    this.close();
    const backup = backupName(this.path, this.now());
    renameSync(this.path, backup);
    this.ensureOpen();
    this.removeOldBackups();
    if (this.compress) this.compressing = this.compressing.then(() => this.gzip(backup));
  }

  /**
   * lumberjack's compressLogFile: `<backup>.gz` with the backup's mode, written whole before the
   * backup is removed; a failure leaves the backup as it is and is reported.
   */
  private async gzip(backup: string): Promise<void> {
    const target = `${backup}.gz`;
    try {
      const mode = statSync(backup).mode & 0o777;
      await pipeline(createReadStream(backup), createGzip(), createWriteStream(target, { mode }));
      unlinkSync(backup);
    } catch (err) {
      rmSync(target, { force: true });
      // A backup removed meanwhile (--audit-log-maxbackup) is nothing to report.
      if (existsSync(backup)) this.onError(new Error(`failed to compress log file ${backup}: ${(err as Error).message}`));
    }
  }

  private removeOldBackups(): void {
    if (this.maxBackups <= 0 && this.maxAgeDays <= 0) return;
    const dir = dirname(this.path);
    const ext = extname(this.path);
    const prefix = `${basename(this.path, ext)}-`;
    // A compressed backup (`.gz` after the extension) counts as a backup, as in lumberjack.
    const stampOf = (f: string) => {
      const end = f.endsWith(`${ext}.gz`) ? f.length - ext.length - 3 : f.endsWith(ext) ? f.length - ext.length : -1;
      const stamp = end < 0 || !f.startsWith(prefix) ? '' : f.slice(prefix.length, end);
      return /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}$/.test(stamp) ? stamp : undefined;
    };
    const backups = readdirSync(dir)
      .filter((f) => stampOf(f) !== undefined)
      .sort((a, b) => (stampOf(a)! < stampOf(b)! ? 1 : stampOf(a)! > stampOf(b)! ? -1 : 0));
    const cutoff = this.now().getTime() - this.maxAgeDays * 24 * 3600 * 1000;
    backups.forEach((f, i) => {
      const stamp = stampOf(f)!;
      const time = Date.parse(`${stamp.slice(0, 10)}T${stamp.slice(11).replace(/-/g, ':')}Z`);
      const tooMany = this.maxBackups > 0 && i >= this.maxBackups;
      const tooOld = this.maxAgeDays > 0 && time < cutoff;
      if (tooMany || tooOld) {
        try {
          unlinkSync(join(dir, f));
        } catch {
          // Already gone.
        }
      }
    });
  }
}

/** The log backend: processEvents writes the events' lines in one write and answers whether it succeeded. */
export function createLogBackend(options: LogBackendOptions): AuditBackend {
  const format = options.format ?? 'json';
  // encodeEventJson writes JSON.stringify's line from the pieces the event before had in common with it.
  const encode = format === 'legacy' ? eventString : encodeEventJson;
  const direct = format !== 'legacy';
  const file =
    options.path === '-'
      ? undefined
      : new LogFile(
          options.path,
          (options.maxSizeMB ?? 100) * megabyte,
          options.maxBackups ?? 100,
          options.maxAgeDays ?? 366,
          options.now ?? (() => new Date()),
          options.compress ?? false,
          (err) => options.onError?.(err),
        );
  const write = (text: string, count: number): boolean => {
    try {
      if (file) file.write(text);
      else writeSync(1, text);
      return true;
    } catch (err) {
      options.metrics.error('log', count);
      options.onError?.(err as Error);
      return false;
    }
  };
  // Batch mode: lines go to a background writer; one write takes as much as fits in the file
  // before it rotates (at least one chunk).
  const background = options.background
    ? new BackgroundWriter({
        write: (chunks) =>
          file ? file.writeInBackground(chunks) : new Promise((resolve, reject) => writeChunks(1, chunks, (err) => (err ? reject(err) : resolve()))),
        maxWriteBytes: file && (options.maxSizeMB ?? 100) > 0 ? (options.maxSizeMB ?? 100) * megabyte : Infinity,
        maxQueuedBytes: maxQueuedLogBytes,
        onFailure: (count, err) => {
          options.metrics.error('log', count);
          options.onError?.(err);
        },
      })
    : undefined;
  // While corked, lines are gathered and handed over at uncork: one write for everything a flush
  // of batch mode hands over instead of one per event. (The background writer gathers lines itself.)
  let corked = false;
  let pending = '';
  let pendingCount = 0;
  return {
    name: 'log',
    storesEventsAlone: true,
    // encodeEventInto writes pending times from their microseconds; encodeEventJson and eventString make the strings.
    writesPendingTimes: background !== undefined && direct,
    processEvents(events) {
      if (events.length === 0) return true;
      if (background) {
        let stored = true;
        for (const ev of events) {
          // A JSON line goes straight into the slab when it can (encodeEventInto: no line string
          // is built and encoded again); else as a string.
          if (direct && background.appendInto(ev, encodeEventInto, 1)) continue;
          if (background.append(encode(ev), 1)) continue;
          options.metrics.error('log', 1);
          stored = false;
        }
        return stored;
      }
      let text = '';
      for (const ev of events) text += `${encode(ev)}\n`;
      if (corked) {
        pending += text;
        pendingCount += events.length;
        return true;
      }
      return write(text, events.length);
    },
    cork() {
      corked = true;
    },
    uncork() {
      corked = false;
      if (pendingCount === 0) return;
      const [text, count] = [pending, pendingCount];
      pending = '';
      pendingCount = 0;
      write(text, count);
    },
    async shutdown() {
      await background?.drain();
      await file?.compressed();
      file?.close();
    },
  };
}
