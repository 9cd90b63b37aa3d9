import { createHash } from 'node:crypto';

/** The hash functions PKCS#12's own key derivation is used with here, and their block sizes. */
const blockSize = { sha1: 64, sha256: 64 } as const;
const digestSize = { sha1: 20, sha256: 32 } as const;
export type Pkcs12Hash = keyof typeof blockSize;

/** PKCS#12 derivation purposes (RFC 7292 appendix B.3). */
export const pkcs12KeyId = { key: 1, iv: 2, mac: 3 } as const;

/** The password as PKCS#12's derivation takes it: a BMPString (UTF-16BE) with two zero bytes at the end. */
export function bmpPassword(password: string): Buffer {
  return Buffer.concat([Buffer.from(password, 'utf16le').swap16(), Buffer.alloc(2)]);
}

function repeatTo(source: Buffer, v: number): Buffer {
  if (source.length === 0) return source;
  const out = Buffer.alloc(v * Math.ceil(source.length / v));
  for (let i = 0; i < out.length; i++) out[i] = source[i % source.length];
  return out;
}

/**
 * RFC 7292 appendix B.2: the key, IV or MAC key of PKCS#12's password-based encryption and of
 * its MAC. node:crypto does not offer it (OpenSSL's PKCS12_key_gen_uni is not exposed).
 */
export function pkcs12DeriveKey(hash: Pkcs12Hash, password: Buffer, salt: Uint8Array, id: number, iterations: number, length: number): Buffer {
  const v = blockSize[hash];
  const u = digestSize[hash];
  const d = Buffer.alloc(v, id);
  const i = Buffer.concat([repeatTo(Buffer.from(salt), v), repeatTo(password, v)]);
  const out = Buffer.alloc(Math.ceil(length / u) * u);
  for (let block = 0; block * u < length; block++) {
    let a = createHash(hash).update(d).update(i).digest();
    for (let r = 1; r < iterations; r++) a = createHash(hash).update(a).digest();
    a.copy(out, block * u);
    // I_j = (I_j + B + 1) mod 2^(8v) for every v-byte block of I, B being A repeated to v bytes.
    const b = repeatTo(a, v);
    for (let j = 0; j < i.length; j += v) {
      let carry = 1;
      for (let k = v - 1; k >= 0; k--) {
        const sum = i[j + k] + b[k] + carry;
        i[j + k] = sum & 0xff;
        carry = sum >> 8;
      }
    }
  }
  return out.subarray(0, length);
}
