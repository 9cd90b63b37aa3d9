import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BackgroundWriter, backgroundWriteIntervalMs, directLineBytes, maxSpareSlabs, slabBytes, writeChunks, type BackgroundWriterOptions } from './background-writer.js';

/** A writer into memory that records each write's chunks (copied: slabs are reused afterwards). */
function recorder(over: Partial<BackgroundWriterOptions> = {}) {
  const writes: { at: number; text: string; chunks: number }[] = [];
  const failures: { count: number; err: Error }[] = [];
  const writer = new BackgroundWriter({
    write: async (chunks) => {
      writes.push({ at: performance.now(), text: Buffer.concat(chunks).toString('utf8'), chunks: chunks.length });
    },
    maxWriteBytes: Infinity,
    maxQueuedBytes: 64 * 1024 * 1024,
    onFailure: (count, err) => failures.push({ count, err }),
    ...over,
  });
  return { writer, writes, failures };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('background writer', () => {
  it('writes lines in order, each with its newline, UTF-8 exact', async () => {
    const { writer, writes } = recorder();
    const lines = ['{"a":1}', '{"user":"zoë ☃ 𝄞"}', '', 'x'.repeat(1000)];
    for (const l of lines) expect(writer.append(l, 1)).toBe(true);
    await writer.drain();
    expect(writes.map((w) => w.text).join('')).toBe(lines.map((l) => `${l}\n`).join(''));
  });

  it('takes lines encoded straight into the slab in order with the string lines, and nothing of a declined one', async () => {
    const { writer, writes } = recorder();
    const ascii = (text: string, buf: Uint8Array, at: number, end: number) => (at + text.length > end ? -1 : at + Buffer.from(buf.buffer, buf.byteOffset, buf.length).write(text, at, 'latin1'));
    const decline = () => -1;
    expect(writer.append('one', 1)).toBe(true);
    expect(writer.appendInto('two', ascii, 1)).toBe(true);
    expect(writer.appendInto('never', decline, 1)).toBeUndefined();
    expect(writer.append('three', 1)).toBe(true);
    // Lines that together outgrow the slab: the next slab is taken while directLineBytes are still free.
    const long = 'x'.repeat(directLineBytes / 2);
    for (let i = 0; i < slabBytes / long.length + 2; i++) expect(writer.appendInto(long, ascii, 1)).toBe(true);
    await writer.drain();
    expect(writes.map((w) => w.text).join('')).toBe(`one\ntwo\nthree\n${`${long}\n`.repeat(slabBytes / long.length + 2)}`);
  });

  it('leaves a line to append() when the queue may be too full for it', () => {
    const { writer } = recorder({ maxQueuedBytes: directLineBytes - 1 });
    expect(writer.appendInto('x', () => 1, 1)).toBeUndefined();
    expect(writer.append('x', 1)).toBe(true);
  });

  it('gathers the lines of one interval into one write instead of one write per line', async () => {
    const { writer, writes } = recorder();
    writer.append('first', 1);
    for (let i = 0; i < 100; i++) writer.append(`line ${i}`, 1);
    // Polled: on a loaded machine the interval's write can come later than three intervals.
    for (const end = Date.now() + 15_000; writes.length < 2 && Date.now() < end; ) await sleep(backgroundWriteIntervalMs);
    // The first line went out at once; the next hundred waited for the interval and went together.
    expect(writes.map((w) => w.text.split('\n').length - 1)).toEqual([1, 100]);
    expect(writes[1]!.at - writes[0]!.at).toBeGreaterThanOrEqual(backgroundWriteIntervalMs - 2);
    await writer.drain();
  });

  it('gives a line longer than a slab a buffer of its own, and never splits a line', async () => {
    const { writer, writes } = recorder({ maxWriteBytes: 10 });
    const long = 'L'.repeat(slabBytes + 10);
    writer.append('short', 1);
    writer.append(long, 1);
    writer.append('after', 1);
    await writer.drain();
    const all = writes.map((w) => w.text).join('');
    expect(all).toBe(`short\n${long}\nafter\n`);
    // maxWriteBytes is below every chunk: one chunk a write, each whole.
    expect(writes.every((w) => w.chunks === 1)).toBe(true);
  });

  it('reuses a written slab for later lines (what is written is never changed afterwards)', async () => {
    const { writer, writes } = recorder();
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 50; i++) writer.append(`r${round}-${i}-${'p'.repeat(100)}`, 1);
      await writer.drain();
    }
    const lines = writes.map((w) => w.text).join('').trimEnd().split('\n');
    expect(lines).toHaveLength(250);
    expect(lines[249]).toBe(`r4-49-${'p'.repeat(100)}`);
    expect(lines[0]).toBe(`r0-0-${'p'.repeat(100)}`);
  });

  it('keeps up to maxSpareSlabs written slabs for later lines, and no more', async () => {
    const { writer } = recorder();
    const line = 'x'.repeat(1000);
    const perSlab = Math.floor(slabBytes / (line.length + 1));
    const original = Buffer.allocUnsafeSlow;
    let made = 0;
    Buffer.allocUnsafeSlow = (size: number) => {
      if (size === slabBytes) made++;
      return original(size);
    };
    // The first line goes out at once, alone in its slab; the others fill `full` slabs after it.
    const slabsMade = async (full: number) => {
      made = 0;
      for (let i = 0; i < 1 + full * perSlab; i++) writer.append(line, 1);
      await writer.drain();
      return made;
    };
    try {
      expect(await slabsMade(maxSpareSlabs + 1)).toBe(maxSpareSlabs + 2);
      // Written slabs are taken again before any new one…
      expect(await slabsMade(maxSpareSlabs - 1)).toBe(0);
      // …and no more than maxSpareSlabs of them are kept.
      expect(await slabsMade(maxSpareSlabs + 1)).toBe(2);
    } finally {
      Buffer.allocUnsafeSlow = original;
    }
  });

  it('refuses lines past its bound and queues nothing of them', async () => {
    const { writer, writes } = recorder({ maxQueuedBytes: 100 });
    // The first line goes out at once; the next waits for the interval and fills the queue.
    expect(writer.append('a'.repeat(40), 1)).toBe(true);
    expect(writer.append('b'.repeat(40), 1)).toBe(true);
    expect(writer.append('c'.repeat(40), 1)).toBe(false);
    await writer.drain();
    expect(writes.map((w) => w.text).join('')).toBe(`${'a'.repeat(40)}\n${'b'.repeat(40)}\n`);
  });

  it('reports the events of a failed write with the error, and goes on with the next ones', async () => {
    let fail = true;
    const written: string[] = [];
    const failures: number[] = [];
    const writer = new BackgroundWriter({
      write: async (chunks) => {
        if (fail) {
          fail = false;
          throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
        }
        written.push(Buffer.concat(chunks).toString());
      },
      maxWriteBytes: Infinity,
      maxQueuedBytes: 1024,
      onFailure: (count) => failures.push(count),
    });
    writer.append('lost', 3);
    await writer.drain();
    writer.append('kept', 1);
    await writer.drain();
    expect(failures).toEqual([3]);
    expect(written).toEqual(['kept\n']);
  });

  it('writes chunks to a file descriptor whole (writeChunks)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-audit-bw-'));
    try {
      const file = path.join(dir, 'out');
      const fd = fs.openSync(file, 'a');
      const chunks = [Buffer.from('one\n'), Buffer.alloc(300_000, 'x'), Buffer.from('\ntwo\n')];
      const written = await new Promise<number>((resolve, reject) => writeChunks(fd, chunks, (err, n) => (err ? reject(err) : resolve(n))));
      fs.closeSync(fd);
      expect(written).toBe(300_009);
      expect(fs.readFileSync(file).equals(Buffer.concat(chunks))).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
