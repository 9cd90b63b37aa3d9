/**
 * Bytes kept by the server's bounded caches (encoded objects, watch event lines), in memory of
 * their own. `Buffer.from` and `Buffer.concat` cut short results out of Node's shared 8 KiB pool,
 * and a kept slice holds its whole pool block: an encoding of 1 KB kept after its neighbours were
 * dropped would hold 8 KiB that the caches' bounds, which count the bytes kept, do not see. Made
 * once per object version (and event type), so the separate allocation is not on a GET's path.
 */

/** The UTF-8 bytes of `text`, in memory of their own. */
export function ownUtf8(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text, 'utf8'));
  bytes.write(text, 'utf8');
  return bytes;
}

/** `parts` one after the other, in memory of their own. */
export function ownConcat(parts: readonly Uint8Array[]): Buffer {
  let length = 0;
  for (const part of parts) length += part.length;
  const bytes = Buffer.allocUnsafeSlow(length);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}
