import * as asn1js from 'asn1js';
import { fail, isInteger, sequenceItems } from './asn1-reader.js';

export type PublicKeyAlgorithm = 'RSA' | 'ECDSA' | 'Ed25519' | 'X25519' | 'DSA' | 'unknown';

export interface PublicKeyInfo {
  readonly algorithm: PublicKeyAlgorithm;
  /** The algorithm OID of the SubjectPublicKeyInfo. */
  readonly oid: string;
  /** Named curve for ECDSA keys (P-224, P-256, P-384, P-521). */
  readonly curve?: string;
  /** Modulus size in bits for RSA keys. */
  readonly bits?: number;
}

const oid = {
  rsa: '1.2.840.113549.1.1.1',
  rsaPss: '1.2.840.113549.1.1.10',
  ec: '1.2.840.10045.2.1',
  ed25519: '1.3.101.112',
  x25519: '1.3.101.110',
  dsa: '1.2.840.10040.4.1',
} as const;

const curves: Readonly<Record<string, string>> = {
  '1.3.132.0.33': 'P-224',
  '1.2.840.10045.3.1.7': 'P-256',
  '1.3.132.0.34': 'P-384',
  '1.3.132.0.35': 'P-521',
};

/** Reads a SubjectPublicKeyInfo, rejecting keys Go's parser rejects. */
export function parsePublicKey(spki: asn1js.AsnType): PublicKeyInfo {
  const [algorithm, subjectPublicKey] = sequenceItems(spki, 2, 2, 'x509: malformed spki');
  const [algorithmId, params] = sequenceItems(algorithm, 1, 2, 'x509: malformed spki algorithm identifier');
  if (!(algorithmId instanceof asn1js.ObjectIdentifier) || !(subjectPublicKey instanceof asn1js.BitString)) fail('x509: malformed spki');
  if (subjectPublicKey.valueBlock.unusedBits !== 0) fail('x509: malformed spki');
  const algorithmOid = algorithmId.valueBlock.toString();
  const key = subjectPublicKey.valueBlock.valueHexView;
  switch (algorithmOid) {
    case oid.rsa:
    case oid.rsaPss: {
      const parsed = asn1js.fromBER(key);
      const seq = parsed.result;
      if (parsed.offset !== key.byteLength || !(seq instanceof asn1js.Sequence) || seq.valueBlock.value.length !== 2) {
        fail('x509: invalid RSA public key');
      }
      const [modulus, exponent] = seq.valueBlock.value;
      if (!isInteger(modulus) || !isInteger(exponent)) fail('x509: invalid RSA public key');
      const n = modulus.valueBlock.valueHexView;
      if (n.length === 0 || (n[0] & 0x80) !== 0) fail('x509: RSA modulus is not a positive number');
      if (exponent.valueBlock.valueDec <= 0) fail('x509: RSA public exponent is not a positive number');
      let bits = n.length * 8;
      for (let i = 0; i < n.length && n[i] === 0; i++) bits -= 8;
      return { algorithm: 'RSA', oid: algorithmOid, bits };
    }
    case oid.ec: {
      if (!(params instanceof asn1js.ObjectIdentifier)) fail('x509: invalid ECDSA parameters');
      const curve = curves[params.valueBlock.toString()];
      if (curve === undefined) fail('x509: unsupported elliptic curve');
      if (key.length === 0 || key[0] !== 4) fail('x509: failed to unmarshal elliptic curve point');
      return { algorithm: 'ECDSA', oid: algorithmOid, curve };
    }
    case oid.ed25519:
      if (key.length !== 32) fail('x509: wrong Ed25519 public key size');
      return { algorithm: 'Ed25519', oid: algorithmOid };
    case oid.x25519:
      if (key.length !== 32) fail('x509: wrong X25519 public key size');
      return { algorithm: 'X25519', oid: algorithmOid };
    case oid.dsa:
      return { algorithm: 'DSA', oid: algorithmOid };
    default:
      return { algorithm: 'unknown', oid: algorithmOid };
  }
}
