import { randomInt } from 'node:crypto';

/**
 * `metadata.generateName` handling as kube-apiserver does it (`storage/names.SimpleNameGenerator`):
 * the base is cut to 58 bytes and 5 random characters from Kubernetes' alphabet are appended, so
 * a generated name never exceeds 63 characters.
 */

/** Kubernetes' `util/rand` alphabet: no vowels (no accidental words) and no look-alike characters. */
export const generatedNameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';
export const generatedNameRandomLength = 5;
export const maxGeneratedNameLength = 63 - generatedNameRandomLength;

/** Random suffix source; tests inject a deterministic one. Returns an integer in [0, max). */
export type RandomIndex = (max: number) => number;

export function randomNameSuffix(length = generatedNameRandomLength, random: RandomIndex = randomInt): string {
  let out = '';
  for (let i = 0; i < length; i++) out += generatedNameAlphabet[random(generatedNameAlphabet.length)];
  return out;
}

/** `base` (trimmed to 58 bytes, as Go slices bytes) followed by 5 random characters. */
export function generateName(base: string, random: RandomIndex = randomInt): string {
  return `${trimToBytes(base, maxGeneratedNameLength)}${randomNameSuffix(generatedNameRandomLength, random)}`;
}

/** The longest prefix of `value` whose UTF-8 encoding fits in `max` bytes, never splitting a character. */
function trimToBytes(value: string, max: number): string {
  if (value.length <= max && Buffer.byteLength(value, 'utf8') <= max) return value;
  let bytes = 0;
  let out = '';
  for (const ch of value) {
    const n = Buffer.byteLength(ch, 'utf8');
    if (bytes + n > max) break;
    bytes += n;
    out += ch;
  }
  return out;
}
