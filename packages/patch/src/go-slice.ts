/**
 * Just enough of Go's slice behaviour to reproduce how strategic merge patch orders a merged list
 * of scalars: Kubernetes appends the patch's values to the live list and deduplicates in place;
 * when the live list's array has room (Go's encoding/json grows decoded arrays by doubling), the
 * deduplication writes into the live list it later orders by.
 */

// Go's malloc size classes up to 32 KiB (runtime/sizeclasses.go), in bytes.
const SIZE_CLASSES = [
  0, 8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256, 288, 320, 352, 384, 416, 448,
  480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536, 1792, 2048, 2304, 2688, 3072, 3200, 3456, 4096,
  4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240, 10880, 12288, 13568, 14336, 16384, 18432, 19072,
  20480, 21760, 24576, 27264, 28672, 32768,
];
const PAGE = 8192;
const ELEMENT = 16; // an interface{} value

function roundUpSize(bytes: number): number {
  if (bytes <= 32768) return SIZE_CLASSES.find((c) => c >= bytes) ?? bytes;
  return Math.ceil(bytes / PAGE) * PAGE;
}

/** runtime.growslice's new capacity for appending up to `newLen` elements. */
function grow(oldCap: number, newLen: number): number {
  const doubled = oldCap * 2;
  let next: number;
  if (newLen > doubled) next = newLen;
  else if (oldCap < 256) next = doubled;
  else {
    next = oldCap;
    while (next < newLen) next += (next + 3 * 256) >> 2;
  }
  return Math.floor(roundUpSize(next * ELEMENT) / ELEMENT);
}

/** Capacity of a []interface{} that encoding/json decoded with `length` elements (one append each). */
export function decodedCapacity(length: number): number {
  let cap = 0;
  for (let n = 1; n <= length; n++) if (n > cap) cap = grow(cap, n);
  return cap;
}

/**
 * Kubernetes' deduplicateScalars on `append(live, patch...)`: the surviving values in Go's order
 * and, as the live list reads afterwards, `liveAfter` (changed only when the append reused the
 * live list's array).
 */
export function appendAndDeduplicate(live: readonly unknown[], patch: readonly unknown[]): { merged: unknown[]; liveAfter: unknown[] } {
  const shared = patch.length === 0 || decodedCapacity(live.length) >= live.length + patch.length;
  const s = [...live, ...patch];
  let last = s.length - 1;
  for (let i = 0; i < last; i++) {
    for (let j = i + 1; j <= last; j++) {
      if (s[i] === s[j]) {
        s[j] = s[last];
        last--;
        j--;
      }
    }
  }
  const merged = s.slice(0, last + 1);
  return { merged, liveAfter: shared ? s.slice(0, live.length) : [...live] };
}
