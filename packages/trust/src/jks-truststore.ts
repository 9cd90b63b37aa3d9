import { createHash } from 'node:crypto';
import { TrustError } from './trust-error.js';
import type { TruststoreEntry } from './truststore-entries.js';

/** Java's own cacerts password, the default of every JKS truststore. */
export const defaultJksPassword = 'changeit';

/** Bounds for a JKS read back (docs/operations.md): more entries or a longer certificate is refused. */
export const maxTruststoreEntries = 10_000;
const maxCertificateLength = 1024 * 1024;

// The JKS layout (OpenJDK sun.security.provider.JavaKeyStore): magic 0xFEEDFEED, version 2, the
// entry count, then per trusted-certificate entry tag 2, alias (DataOutput.writeUTF), creation
// time in ms, certificate type "X.509" (writeUTF), DER length and DER; then the SHA-1 of the
// password as UTF-16BE, the bytes of "Mighty Aphrodite" and everything before the digest.
const magic = 0xfeedfeed;
const trustedCertTag = 2;
const whitener = Buffer.from('Mighty Aphrodite', 'utf8');

/** Java's modified UTF-8 (DataOutput.writeUTF): NUL and U+0080–U+07FF in 2 bytes, the rest of the BMP and each surrogate in 3. */
function javaUtf(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 1 && c <= 0x7f) bytes.push(c);
    else if (c <= 0x7ff) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 0x3f));
    else bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
  }
  if (bytes.length > 0xffff) throw new TrustError('EncodeFailed', `alias too long for JKS: ${text.slice(0, 40)}...`);
  const out = Buffer.alloc(2 + bytes.length);
  out.writeUInt16BE(bytes.length, 0);
  out.set(bytes, 2);
  return out;
}

function readJavaUtf(buf: Buffer, at: number): { text: string; next: number } {
  const length = buf.readUInt16BE(at);
  const end = at + 2 + length;
  if (end > buf.length) throw new RangeError('truncated');
  let text = '';
  for (let i = at + 2; i < end; ) {
    const b = buf[i];
    if (b < 0x80) {
      text += String.fromCharCode(b);
      i += 1;
    } else if ((b & 0xe0) === 0xc0) {
      text += String.fromCharCode(((b & 0x1f) << 6) | (buf[i + 1] & 0x3f));
      i += 2;
    } else {
      text += String.fromCharCode(((b & 0x0f) << 12) | ((buf[i + 1] & 0x3f) << 6) | (buf[i + 2] & 0x3f));
      i += 3;
    }
  }
  return { text, next: end };
}

/** Java turns each char of the password into two bytes, high byte first. */
function integrityDigest(password: string, data: Buffer): Buffer {
  return createHash('sha1').update(Buffer.from(password, 'utf16le').swap16()).update(whitener).update(data).digest();
}

/** A JKS keystore of trusted-certificate entries, as `keytool -importcert` writes one. */
export function encodeJksTruststore(entries: readonly TruststoreEntry[], options: { password?: string } = {}): Uint8Array {
  const parts: Buffer[] = [];
  const header = Buffer.alloc(12);
  header.writeUInt32BE(magic, 0);
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(entries.length, 8);
  parts.push(header);
  for (const entry of entries) {
    const tag = Buffer.alloc(4);
    tag.writeUInt32BE(trustedCertTag, 0);
    // The entry's date is the certificate's notBefore, not the time of writing: equal anchors give equal bytes.
    const date = Buffer.alloc(8);
    date.writeBigInt64BE(BigInt(entry.notBefore.getTime()), 0);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(entry.der.length, 0);
    parts.push(tag, javaUtf(entry.alias), date, javaUtf('X.509'), length, Buffer.from(entry.der));
  }
  const data = Buffer.concat(parts);
  return Buffer.concat([data, integrityDigest(options.password ?? defaultJksPassword, data)]);
}

/**
 * The trusted-certificate entries of a JKS keystore, its integrity digest checked against the
 * password. A store with private keys, a wrong password or a damaged layout is TrustError
 * `DecodeFailed`.
 */
export function decodeJksTruststore(bytes: Uint8Array, options: { password?: string } = {}): { alias: string; der: Uint8Array; date: Date }[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const fail = (why: string): never => {
    throw new TrustError('DecodeFailed', `not a JKS truststore: ${why}`);
  };
  if (buf.length < 32 || buf.readUInt32BE(0) !== magic) fail('bad magic number');
  const version = buf.readUInt32BE(4);
  if (version !== 1 && version !== 2) fail(`unsupported version ${version}`);
  const data = buf.subarray(0, buf.length - 20);
  if (!integrityDigest(options.password ?? defaultJksPassword, data).equals(buf.subarray(buf.length - 20))) {
    fail('keystore password was incorrect or the file is damaged');
  }
  const count = data.readUInt32BE(8);
  if (count > maxTruststoreEntries) fail(`more than ${maxTruststoreEntries} entries`);
  const out: { alias: string; der: Uint8Array; date: Date }[] = [];
  let at = 12;
  try {
    for (let i = 0; i < count; i++) {
      const tag = data.readUInt32BE(at);
      if (tag !== trustedCertTag) fail(`entry ${i} is not a trusted certificate (tag ${tag})`);
      const alias = readJavaUtf(data, at + 4);
      const date = new Date(Number(data.readBigInt64BE(alias.next)));
      at = alias.next + 8;
      if (version === 2) {
        const type = readJavaUtf(data, at);
        if (type.text !== 'X.509') fail(`entry ${i} has certificate type ${type.text}`);
        at = type.next;
      }
      const length = data.readUInt32BE(at);
      if (length > maxCertificateLength || at + 4 + length > data.length) fail(`entry ${i} is truncated`);
      out.push({ alias: alias.text, der: new Uint8Array(data.subarray(at + 4, at + 4 + length)), date });
      at += 4 + length;
    }
  } catch (err) {
    if (err instanceof TrustError) throw err;
    fail('truncated');
  }
  if (at !== data.length) fail('data after the last entry');
  return out;
}
