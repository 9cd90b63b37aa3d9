import { randomFillSync } from 'node:crypto';

// Random bytes for 128 UUIDs at a time, as node's own randomUUID batches them.
const batch = 128;
const random = Buffer.allocUnsafeSlow(16 * batch);
let used = batch;
const text = Buffer.allocUnsafeSlow(36);
const hexDigits = Buffer.from('0123456789abcdef', 'latin1');

/**
 * A random (version 4, RFC 4122) UUID, as `crypto.randomUUID()` makes one, for a request's
 * Audit-Id: from the same CSPRNG, in the same batches of 128, written as ASCII into a buffer
 * and read out as one flat string. Node's `randomUUID` joins 20 pieces into a tree of
 * concatenated strings, and Node's header check (a regular expression) then flattens that tree
 * on V8's slow path, in the runtime, when the Audit-Id header is written. This spares per GET
 * about 0.6 KB of garbage and 130-170 ns (UUID and header check, in a microbenchmark at load 2;
 * perf-native.mjs showed `Runtime_RegExpExec` and `SlowFlatten` under `writeHead`, which
 * the bare server has not; docs/performance.md "apiserver").
 */
export function newRequestUUID(): string {
  if (used === batch) {
    randomFillSync(random);
    used = 0;
  }
  let at = used++ * 16;
  let t = 0;
  for (let i = 0; i < 16; i++, at++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) text[t++] = 0x2d; // '-'
    // The version (4) in the high nibble of byte 6, the variant (10xx) in the high bits of byte 8.
    const b = i === 6 ? (random[at]! & 0x0f) | 0x40 : i === 8 ? (random[at]! & 0x3f) | 0x80 : random[at]!;
    text[t++] = hexDigits[b >> 4]!;
    text[t++] = hexDigits[b & 15]!;
  }
  return text.toString('latin1', 0, 36);
}
