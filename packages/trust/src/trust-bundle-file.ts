import { randomBytes } from 'node:crypto';
import { open, readFile, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { TrustError } from './trust-error.js';

/** The mode of a written bundle: anchors are public, every reader may read them. */
export const trustBundleFileMode = 0o644;

/**
 * Whether `file` exists; throws FileFailed (`unable to <verb> <file>: ...`) when it names something
 * other than a regular file: a device such as `/dev/null` or `/dev/stdout`, a named pipe (whose
 * read would wait for a writer), a directory.
 */
async function regularFileExists(file: string, verb: 'read' | 'write'): Promise<boolean> {
  let st;
  try {
    st = await stat(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new TrustError('FileFailed', `unable to ${verb} ${file}: ${(err as Error).message}`, { cause: err });
  }
  if (!st.isFile()) throw new TrustError('FileFailed', `unable to ${verb} ${file}: not a regular file`);
  return true;
}

/** The file's text (or bytes with `binary`), or undefined when it does not exist; FileFailed when it is not a regular file. */
export async function readTrustBundleFile(file: string): Promise<string | undefined>;
export async function readTrustBundleFile(file: string, binary: 'binary'): Promise<Buffer | undefined>;
export async function readTrustBundleFile(file: string, binary?: 'binary'): Promise<string | Buffer | undefined> {
  if (!(await regularFileExists(file, 'read'))) return undefined;
  try {
    return binary ? await readFile(file) : await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new TrustError('FileFailed', `unable to read ${file}: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * Replaces `file` with `pem` (or a truststore's bytes) atomically: written to a temporary file in the same directory
 * (same file system), flushed, given mode 0644 whatever the umask, then renamed over the target
 * and the directory flushed. A reader sees the old bundle or the new one, never a mix, and a
 * crash leaves at most a stray `.<name>.tmp-*` file. A path that names something other than a
 * regular file (a device such as `/dev/null` or `/dev/stdout`, a named pipe, a directory) is
 * refused, before anything is written: the rename would put a regular file in its place.
 */
export async function writeTrustBundleFile(file: string, pem: string | Uint8Array): Promise<void> {
  await regularFileExists(file, 'write');
  const dir = path.dirname(path.resolve(file));
  const tmp = path.join(dir, `.${path.basename(file)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const handle = await open(tmp, 'wx', trustBundleFileMode);
    try {
      await handle.writeFile(pem);
      await handle.chmod(trustBundleFileMode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw new TrustError('FileFailed', `unable to write ${file}: ${(err as Error).message}`, { cause: err });
  }
  // Flush the rename itself; a directory that cannot be opened for that (some file systems) is not an error.
  const dirHandle = await open(dir, 'r').catch(() => undefined);
  await dirHandle?.sync().catch(() => undefined);
  await dirHandle?.close();
}
