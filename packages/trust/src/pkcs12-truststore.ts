import { createCipheriv, createDecipheriv, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import * as asn1js from 'asn1js';
import { bmpPassword, pkcs12DeriveKey, pkcs12KeyId, type Pkcs12Hash } from './pkcs12-key-derivation.js';
import { TrustError } from './trust-error.js';
import type { TruststoreEntry } from './truststore-entries.js';

export interface Pkcs12TruststoreOptions {
  /**
   * Absent: a password-less store as Java 18+ writes one by default (certificates unencrypted,
   * no MAC; Java 17 and OpenSSL read it). Present: encrypted certificates and a MAC.
   */
  password?: string;
  /**
   * For readers without PBES2 (Java before 8u301, OpenSSL 1.0, older Windows):
   * pbeWithSHAAnd3-KeyTripleDES-CBC and a SHA-1 MAC instead of PBES2/AES-256-CBC and HMAC-SHA-256.
   */
  legacy?: boolean;
  /** PBKDF2 and MAC iterations; default 10,000 as Java 17's keytool, 2,048 when legacy (OpenSSL's). */
  iterations?: number;
}

/** Bound on a PKCS#12 file read back (docs/operations.md). */
export const maxPkcs12Size = 16 * 1024 * 1024;

const oid = {
  data: '1.2.840.113549.1.7.1',
  encryptedData: '1.2.840.113549.1.7.6',
  certBag: '1.2.840.113549.1.12.10.1.3',
  x509Certificate: '1.2.840.113549.1.9.22.1',
  friendlyName: '1.2.840.113549.1.9.20',
  // Oracle's trusted key usage: Java's PKCS12KeyStore loads a certificate bag without it as no entry at all.
  javaTrustedKeyUsage: '2.16.840.1.113894.746875.1.1',
  anyExtendedKeyUsage: '2.5.29.37.0',
  pbes2: '1.2.840.113549.1.5.13',
  pbkdf2: '1.2.840.113549.1.5.12',
  hmacWithSHA1: '1.2.840.113549.2.7',
  hmacWithSHA256: '1.2.840.113549.2.9',
  aes128Cbc: '2.16.840.1.101.3.4.1.2',
  aes192Cbc: '2.16.840.1.101.3.4.1.22',
  aes256Cbc: '2.16.840.1.101.3.4.1.42',
  pbeWithSHAAnd3KeyTripleDESCBC: '1.2.840.113549.1.12.1.3',
  sha1: '1.3.14.3.2.26',
  sha256: '2.16.840.1.101.3.4.2.1',
} as const;

const seq = (...value: asn1js.AsnType[]) => new asn1js.Sequence({ value });
const objectId = (value: string) => new asn1js.ObjectIdentifier({ value });
const octets = (bytes: Uint8Array) => new asn1js.OctetString({ valueHex: bytes });
const integer = (value: number) => new asn1js.Integer({ value });
const explicit0 = (inner: asn1js.AsnType) => new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 0 }, value: [inner] });
const algorithm = (id: string, params?: asn1js.AsnType) => seq(objectId(id), params ?? new asn1js.Null());
const der = (value: asn1js.AsnType) => new Uint8Array(value.toBER(false));

function certBag(entry: TruststoreEntry): asn1js.Sequence {
  return seq(
    objectId(oid.certBag),
    explicit0(seq(objectId(oid.x509Certificate), explicit0(octets(entry.der)))),
    new asn1js.Set({
      value: [
        seq(objectId(oid.friendlyName), new asn1js.Set({ value: [new asn1js.BmpString({ value: entry.alias })] })),
        seq(objectId(oid.javaTrustedKeyUsage), new asn1js.Set({ value: [objectId(oid.anyExtendedKeyUsage)] })),
      ],
    }),
  );
}

/** SafeContents encrypted as PKCS#7 EncryptedData: PBES2 (PBKDF2-HMAC-SHA-256, AES-256-CBC) or legacy 3DES. */
function encryptedContentInfo(plain: Uint8Array, password: string, legacy: boolean, iterations: number): asn1js.Sequence {
  const salt = randomBytes(legacy ? 8 : 16);
  let algorithmId: asn1js.Sequence;
  let encrypted: Buffer;
  if (legacy) {
    const pass = bmpPassword(password);
    const key = pkcs12DeriveKey('sha1', pass, salt, pkcs12KeyId.key, iterations, 24);
    const iv = pkcs12DeriveKey('sha1', pass, salt, pkcs12KeyId.iv, iterations, 8);
    const cipher = createCipheriv('des-ede3-cbc', key, iv);
    encrypted = Buffer.concat([cipher.update(plain), cipher.final()]);
    algorithmId = seq(objectId(oid.pbeWithSHAAnd3KeyTripleDESCBC), seq(octets(salt), integer(iterations)));
  } else {
    const iv = randomBytes(16);
    // PBES2 takes the password's UTF-8 bytes (RFC 8018), as OpenSSL and Java do inside PKCS#12.
    const key = pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, 32, 'sha256');
    const cipher = createCipheriv('aes-256-cbc', key, iv);
    encrypted = Buffer.concat([cipher.update(plain), cipher.final()]);
    algorithmId = seq(
      objectId(oid.pbes2),
      seq(
        seq(objectId(oid.pbkdf2), seq(octets(salt), integer(iterations), algorithm(oid.hmacWithSHA256))),
        seq(objectId(oid.aes256Cbc), octets(iv)),
      ),
    );
  }
  return seq(
    objectId(oid.encryptedData),
    explicit0(
      seq(
        integer(0),
        seq(objectId(oid.data), algorithmId, new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 0 }, valueHex: encrypted })),
      ),
    ),
  );
}

function mac(hash: Pkcs12Hash, password: string, salt: Uint8Array, iterations: number, data: Uint8Array): Buffer {
  const key = pkcs12DeriveKey(hash, bmpPassword(password), salt, pkcs12KeyId.mac, iterations, hash === 'sha1' ? 20 : 32);
  return createHmac(hash, key).update(data).digest();
}

/**
 * A PKCS#12 truststore (RFC 7292) of certificate bags only, each with its alias as friendlyName
 * and Java's trusted-key-usage attribute (anyExtendedKeyUsage), as `keytool -importcert
 * -storetype pkcs12` writes one.
 */
export function encodePkcs12Truststore(entries: readonly TruststoreEntry[], options: Pkcs12TruststoreOptions = {}): Uint8Array {
  const legacy = options.legacy === true;
  const iterations = options.iterations ?? (legacy ? 2048 : 10_000);
  const safeContents = der(seq(...entries.map(certBag)));
  const { password } = options;
  const contentInfo = password === undefined ? seq(objectId(oid.data), explicit0(octets(safeContents))) : encryptedContentInfo(safeContents, password, legacy, iterations);
  const authSafe = der(seq(contentInfo));
  const pfx = [integer(3), seq(objectId(oid.data), explicit0(octets(authSafe)))];
  if (password !== undefined) {
    const hash: Pkcs12Hash = legacy ? 'sha1' : 'sha256';
    const salt = randomBytes(legacy ? 8 : 16);
    pfx.push(seq(seq(algorithm(legacy ? oid.sha1 : oid.sha256), octets(mac(hash, password, salt, iterations, authSafe))), octets(salt), integer(iterations)));
  }
  return der(seq(...pfx));
}

/** A certificate bag read back from a PKCS#12 store. */
export interface Pkcs12Certificate {
  alias: string;
  der: Uint8Array;
  /** The bag carries Java's trusted-key-usage attribute. */
  trusted: boolean;
}

function fail(why: string): never {
  throw new TrustError('DecodeFailed', `not a PKCS#12 truststore: ${why}`);
}

/** Children of a constructed block; anything else fails. */
function children(block: asn1js.AsnType | undefined, what: string): asn1js.AsnType[] {
  const value = (block as asn1js.Constructed | undefined)?.valueBlock?.value;
  if (!Array.isArray(value)) fail(`${what} is not a sequence`);
  return value;
}

function oidOf(block: asn1js.AsnType | undefined, what: string): string {
  if (!(block instanceof asn1js.ObjectIdentifier)) fail(`${what} is not an object identifier`);
  return block.getValue();
}

/** The bytes of an OCTET STRING, or of a context-specific primitive (IMPLICIT OCTET STRING). */
function bytesOf(block: asn1js.AsnType | undefined, what: string): Uint8Array {
  if (block instanceof asn1js.OctetString) return new Uint8Array(block.getValue());
  const view = (block as asn1js.Primitive | undefined)?.valueBlock?.valueHexView;
  if (!(view instanceof Uint8Array)) fail(`${what} is not an octet string`);
  return view;
}

function intOf(block: asn1js.AsnType | undefined, what: string): number {
  if (!(block instanceof asn1js.Integer)) fail(`${what} is not an integer`);
  const n = block.valueBlock.valueDec;
  if (!Number.isSafeInteger(n) || n < 1 || n > 10_000_000) fail(`${what} is out of range`);
  return n;
}

function parse(bytes: Uint8Array, what: string): asn1js.AsnType {
  let parsed: ReturnType<typeof asn1js.fromBER>;
  try {
    parsed = asn1js.fromBER(bytes);
  } catch (err) {
    // asn1js throws on some damaged values (a string it cannot convert) instead of reporting them.
    fail(`${what}: ${(err as Error).message}`);
  }
  if (parsed.offset === -1) fail(`${what}: ${parsed.result.error}`);
  return parsed.result;
}

function decrypt(algorithmId: asn1js.AsnType, encrypted: Uint8Array, password: string): Buffer {
  const [idBlock, params] = children(algorithmId, 'the encryption algorithm');
  const id = oidOf(idBlock, 'the encryption algorithm');
  try {
    if (id === oid.pbeWithSHAAnd3KeyTripleDESCBC) {
      const [salt, iter] = children(params, 'the PBE parameters');
      const pass = bmpPassword(password);
      const iterations = intOf(iter, 'the PBE iterations');
      const key = pkcs12DeriveKey('sha1', pass, bytesOf(salt, 'the salt'), pkcs12KeyId.key, iterations, 24);
      const iv = pkcs12DeriveKey('sha1', pass, bytesOf(salt, 'the salt'), pkcs12KeyId.iv, iterations, 8);
      const d = createDecipheriv('des-ede3-cbc', key, iv);
      return Buffer.concat([d.update(encrypted), d.final()]);
    }
    if (id !== oid.pbes2) fail(`unsupported encryption ${id}`);
    const [kdf, scheme] = children(params, 'the PBES2 parameters');
    const [kdfId, kdfParams] = children(kdf, 'the key derivation');
    if (oidOf(kdfId, 'the key derivation') !== oid.pbkdf2) fail('unsupported key derivation');
    const [salt, iter, ...rest] = children(kdfParams, 'the PBKDF2 parameters');
    const prfBlock = rest.find((b) => b instanceof asn1js.Sequence);
    const prf = prfBlock ? oidOf(children(prfBlock, 'the PRF')[0], 'the PRF') : oid.hmacWithSHA1;
    const digest = prf === oid.hmacWithSHA256 ? 'sha256' : prf === oid.hmacWithSHA1 ? 'sha1' : fail(`unsupported PRF ${prf}`);
    const [schemeId, ivBlock] = children(scheme, 'the encryption scheme');
    const cipherName = { [oid.aes128Cbc]: 'aes-128-cbc', [oid.aes192Cbc]: 'aes-192-cbc', [oid.aes256Cbc]: 'aes-256-cbc' }[oidOf(schemeId, 'the cipher')];
    if (!cipherName) fail('unsupported cipher');
    const keyLength = Number(cipherName.slice(4, 7)) / 8;
    const key = pbkdf2Sync(Buffer.from(password, 'utf8'), bytesOf(salt, 'the salt'), intOf(iter, 'the PBKDF2 iterations'), keyLength, digest);
    const d = createDecipheriv(cipherName, key, bytesOf(ivBlock, 'the IV'));
    return Buffer.concat([d.update(encrypted), d.final()]);
  } catch (err) {
    if (err instanceof TrustError) throw err;
    return fail('keystore password was incorrect (the certificates do not decrypt)');
  }
}

function readBag(bag: asn1js.AsnType): Pkcs12Certificate | undefined {
  const [bagId, bagValue, attributes] = children(bag, 'a safe bag');
  if (oidOf(bagId, 'the bag type') !== oid.certBag) return undefined;
  const [certId, certValue] = children(children(bagValue, 'the bag value')[0], 'the certificate bag');
  if (oidOf(certId, 'the certificate type') !== oid.x509Certificate) return undefined;
  const certDer = bytesOf(children(certValue, 'the certificate value')[0], 'the certificate');
  let alias = '';
  let trusted = false;
  for (const attribute of attributes ? children(attributes, 'the bag attributes') : []) {
    const [type, values] = children(attribute, 'an attribute');
    const first = children(values, 'the attribute values')[0];
    const t = oidOf(type, 'the attribute type');
    if (t === oid.friendlyName && first instanceof asn1js.BmpString) alias = first.getValue();
    if (t === oid.javaTrustedKeyUsage) trusted = true;
  }
  return { alias, der: certDer, trusted };
}

/**
 * The certificate bags of a PKCS#12 store, its MAC checked (when it has one) and its encrypted
 * contents decrypted with the password. Reads what `encodePkcs12Truststore` writes (both modes)
 * and the PBES2 stores of Java and OpenSSL; a wrong password or a damaged file is TrustError
 * `DecodeFailed`.
 */
export function decodePkcs12Truststore(bytes: Uint8Array, options: { password?: string } = {}): { certificates: Pkcs12Certificate[]; mac?: Pkcs12Hash } {
  if (bytes.length > maxPkcs12Size) fail(`larger than ${maxPkcs12Size} bytes`);
  const [version, authSafeInfo, macData] = children(parse(bytes, 'the file'), 'the PFX');
  if (intOf(version, 'the version') !== 3) fail('version is not 3');
  const [authType, authContent] = children(authSafeInfo, 'the content');
  if (oidOf(authType, 'the content type') !== oid.data) fail('the content is not data (public-key integrity is not supported)');
  const authSafe = bytesOf(children(authContent, 'the content')[0], 'the content');
  const password = options.password;
  let macHash: Pkcs12Hash | undefined;
  if (macData) {
    if (password === undefined) fail('the store has a MAC: a password is needed');
    const [digestInfo, salt, iter] = children(macData, 'the MAC');
    const [digestAlgorithm, digest] = children(digestInfo, 'the MAC digest');
    const hashOid = oidOf(children(digestAlgorithm, 'the MAC algorithm')[0], 'the MAC algorithm');
    const hash: Pkcs12Hash = hashOid === oid.sha256 ? 'sha256' : hashOid === oid.sha1 ? 'sha1' : fail(`unsupported MAC ${hashOid}`);
    const expected = mac(hash, password, bytesOf(salt, 'the MAC salt'), iter ? intOf(iter, 'the MAC iterations') : 1, authSafe);
    const actual = bytesOf(digest, 'the MAC');
    if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) fail('keystore password was incorrect (the MAC does not verify)');
    macHash = hash;
  }
  const out: Pkcs12Certificate[] = [];
  for (const info of children(parse(authSafe, 'the authenticated safe'), 'the authenticated safe')) {
    const [type, content] = children(info, 'a content info');
    let safeContents: Uint8Array;
    const t = oidOf(type, 'a content type');
    if (t === oid.data) {
      safeContents = bytesOf(children(content, 'the content')[0], 'the content');
    } else if (t === oid.encryptedData) {
      if (password === undefined) fail('the certificates are encrypted: a password is needed');
      const [, encryptedInfo] = children(children(content, 'the encrypted data')[0], 'the encrypted data');
      const [, algorithmId, encrypted] = children(encryptedInfo, 'the encrypted content');
      safeContents = decrypt(algorithmId, bytesOf(encrypted, 'the encrypted content'), password);
    } else {
      fail(`unsupported content type ${t}`);
    }
    for (const bag of children(parse(safeContents, 'the safe contents'), 'the safe contents')) {
      const cert = readBag(bag);
      if (cert) out.push(cert);
    }
  }
  return { certificates: out, ...(macHash ? { mac: macHash } : {}) };
}
