import { createPrivateKey, createHash, randomBytes, webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { KeyUsage } from './certificate.js';
import { keyUsageBits } from './certificate-extensions.js';
import { encodePem, readPemEntries } from './pem.js';

/**
 * Development PKI: a CA, serving and client certificates, built with pkijs and signed with
 * ECDSA P-256 keys from WebCrypto. The certificates are what Go's crypto/x509 (kubectl) and
 * node:tls expect: CA with critical basicConstraints cA and keyCertSign, serving certificates
 * with SANs and serverAuth, client certificates with clientAuth and the groups in O.
 */

export interface PemKeyPair {
  certPem: string;
  /** PKCS#8 PEM ("PRIVATE KEY"). */
  keyPem: string;
}

export interface CertificateTemplate {
  commonName: string;
  organizations?: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
  validityDays?: number;
  /** 'ca' (cA true), 'leaf' (cA false) or 'absent' (no basicConstraints extension). */
  basicConstraints?: 'ca' | 'leaf' | 'absent';
  pathLen?: number;
  /** Key usage bits; omitted means no keyUsage extension. */
  keyUsage?: KeyUsage[];
  /** Extended key usage OIDs; omitted means no extKeyUsage extension. */
  extKeyUsage?: string[];
  /** Start of validity; defaults to five minutes ago (tolerates clock skew between hosts). */
  notBefore?: Date;
}

export const extKeyUsageOid = {
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

export class DevPkiError extends Error {
  readonly code = 'ERR_DEV_PKI';
  constructor(message: string) {
    super(message);
    this.name = 'DevPkiError';
  }
}

type EngineCrypto = ConstructorParameters<typeof pkijs.CryptoEngine>[0]['crypto'];
const engine = new pkijs.CryptoEngine({ name: 'node-webcrypto', crypto: webcrypto as unknown as EngineCrypto });
const ecParams = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const defaultValidityDays = 365;
const oidCommonName = '2.5.4.3';
const oidOrganization = '2.5.4.10';

function keyUsageBitString(usages: readonly KeyUsage[]): asn1js.BitString {
  const bits = usages.map((u) => keyUsageBits.indexOf(u));
  const highest = Math.max(...bits, 0);
  const bytes = new Uint8Array((highest >> 3) + 1);
  for (const bit of bits) bytes[bit >> 3] |= 0x80 >> (bit & 7);
  // DER: no trailing zero bits, so the unused-bit count is fixed by the last bit set.
  const unusedBits = bits.length === 0 ? 0 : 7 - (highest & 7);
  return new asn1js.BitString({ valueHex: bytes, unusedBits });
}

function ipAddressBytes(address: string): Uint8Array {
  const family = isIP(address);
  if (family === 4) return Uint8Array.from(address.split('.').map(Number));
  if (family !== 6) throw new DevPkiError(`invalid IP address: ${address}`);
  let text = address;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    tail = text.slice(lastColon + 1).split('.').map(Number);
    text = text.slice(0, lastColon + 1) + '0:0';
  }
  const [head, rest] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const restGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const zeros = rest === undefined ? 0 : 8 - headGroups.length - restGroups.length;
  const groups = [...headGroups, ...Array<string>(zeros).fill('0'), ...restGroups].map((g) => parseInt(g, 16));
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[i * 2] = g >> 8;
    bytes[i * 2 + 1] = g & 0xff;
  });
  if (tail.length === 4) bytes.set(tail, 12);
  return bytes;
}

function name(commonName: string, organizations: readonly string[] = []): pkijs.RelativeDistinguishedNames {
  // One attribute per RDN, O before CN (Go's order); pkijs would put them all into one multi-valued RDN.
  const attribute = (type: string, value: string) =>
    new asn1js.Set({ value: [new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: type }), new asn1js.Utf8String({ value })] })] });
  const sequence = new asn1js.Sequence({
    value: [...organizations.map((o) => attribute(oidOrganization, o)), attribute(oidCommonName, commonName)],
  });
  return new pkijs.RelativeDistinguishedNames({ schema: asn1js.fromBER(sequence.toBER(false)).result });
}

function time(value: Date): pkijs.Time {
  // RFC 5280: UTCTime through 2049, GeneralizedTime from 2050.
  return new pkijs.Time({ type: value.getUTCFullYear() < 2050 ? 0 : 1, value });
}

function extension(extnID: string, critical: boolean, value: { toSchema(): asn1js.AsnType }): pkijs.Extension {
  return new pkijs.Extension({ extnID, critical, extnValue: value.toSchema().toBER(false) });
}

function rawExtension(extnID: string, critical: boolean, value: asn1js.AsnType): pkijs.Extension {
  return new pkijs.Extension({ extnID, critical, extnValue: value.toBER(false) });
}

function serialNumber(): asn1js.Integer {
  const bytes = randomBytes(16);
  // Positive and minimally encoded, as Go's parser requires.
  bytes[0] = (bytes[0] & 0x7f) | 0x01;
  return new asn1js.Integer({ valueHex: bytes });
}

function keyIdentifier(spki: pkijs.PublicKeyInfo): Uint8Array {
  return createHash('sha1').update(spki.subjectPublicKey.valueBlock.valueHexView).digest();
}

interface Signer {
  readonly key: webcrypto.CryptoKey;
  readonly name: pkijs.RelativeDistinguishedNames;
  readonly keyId: Uint8Array;
}

function derOfSinglePem(pem: string, type: string, what: string): Uint8Array {
  const blocks = readPemEntries(pem).filter((e) => e.kind === 'block' && e.type === type);
  const first = blocks[0];
  if (first === undefined || first.kind !== 'block') throw new DevPkiError(`${what}: no ${type} PEM block`);
  return first.bytes;
}

async function loadSigner(ca: PemKeyPair): Promise<Signer> {
  const der = derOfSinglePem(ca.certPem, 'CERTIFICATE', 'CA certificate');
  const cert = pkijs.Certificate.fromBER(der);
  const keyObject = createPrivateKey(ca.keyPem);
  let algorithm: webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams;
  if (keyObject.asymmetricKeyType === 'ec') {
    const curve = keyObject.asymmetricKeyDetails?.namedCurve;
    const namedCurve = curve === 'prime256v1' ? 'P-256' : curve === 'secp384r1' ? 'P-384' : curve === 'secp521r1' ? 'P-521' : undefined;
    if (namedCurve === undefined) throw new DevPkiError(`unsupported CA key curve: ${String(curve)}`);
    algorithm = { name: 'ECDSA', namedCurve };
  } else if (keyObject.asymmetricKeyType === 'rsa') {
    algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  } else {
    throw new DevPkiError(`unsupported CA key type: ${String(keyObject.asymmetricKeyType)}`);
  }
  const pkcs8 = keyObject.export({ format: 'der', type: 'pkcs8' });
  const key = await webcrypto.subtle.importKey('pkcs8', pkcs8, algorithm, false, ['sign']);
  return { key, name: cert.subject, keyId: keyIdentifier(cert.subjectPublicKeyInfo) };
}

/**
 * Creates a certificate from a template, self-signed when `issuer` is omitted. Exposed for tests
 * and tools that need unusual certificates (a non-CA leaf, no basicConstraints).
 */
export async function createCertificate(template: CertificateTemplate, issuer?: PemKeyPair): Promise<PemKeyPair> {
  const keys = (await webcrypto.subtle.generateKey(ecParams, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = new pkijs.Certificate();
  cert.version = 2;
  cert.serialNumber = serialNumber();
  const subject = name(template.commonName, template.organizations);
  cert.subject = subject;
  const notBefore = template.notBefore ?? new Date(Date.now() - 5 * 60 * 1000);
  const days = template.validityDays ?? defaultValidityDays;
  cert.notBefore = time(notBefore);
  cert.notAfter = time(new Date(notBefore.getTime() + 5 * 60 * 1000 + days * 24 * 60 * 60 * 1000));
  await cert.subjectPublicKeyInfo.importKey(keys.publicKey, engine);

  const signer: Signer = issuer !== undefined
    ? await loadSigner(issuer)
    : { key: keys.privateKey, name: subject, keyId: keyIdentifier(cert.subjectPublicKeyInfo) };
  cert.issuer = signer.name;

  const extensions: pkijs.Extension[] = [];
  if (template.keyUsage !== undefined) extensions.push(rawExtension('2.5.29.15', true, keyUsageBitString(template.keyUsage)));
  if (template.extKeyUsage !== undefined) {
    extensions.push(extension('2.5.29.37', false, new pkijs.ExtKeyUsage({ keyPurposes: template.extKeyUsage })));
  }
  const basic = template.basicConstraints ?? 'leaf';
  if (basic !== 'absent') {
    const constraints = basic === 'ca'
      ? new pkijs.BasicConstraints({ cA: true, ...(template.pathLen !== undefined ? { pathLenConstraint: template.pathLen } : {}) })
      : new pkijs.BasicConstraints({});
    extensions.push(extension('2.5.29.19', true, constraints));
  }
  extensions.push(rawExtension('2.5.29.14', false, new asn1js.OctetString({ valueHex: keyIdentifier(cert.subjectPublicKeyInfo) })));
  if (issuer !== undefined) {
    extensions.push(extension('2.5.29.35', false, new pkijs.AuthorityKeyIdentifier({ keyIdentifier: new asn1js.OctetString({ valueHex: signer.keyId }) })));
  }
  const altNames = [
    ...(template.dnsNames ?? []).map((value) => new pkijs.GeneralName({ type: 2, value })),
    ...(template.ipAddresses ?? []).map(
      (address) => new pkijs.GeneralName({ type: 7, value: new asn1js.OctetString({ valueHex: ipAddressBytes(address) }) }),
    ),
  ];
  if (altNames.length > 0) extensions.push(extension('2.5.29.17', false, new pkijs.GeneralNames({ names: altNames })));
  cert.extensions = extensions;

  await cert.sign(signer.key, 'SHA-256', engine);
  const der = new Uint8Array(cert.toSchema(true).toBER(false));
  const pkcs8 = new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return { certPem: encodePem('CERTIFICATE', der), keyPem: encodePem('PRIVATE KEY', pkcs8) };
}

/** A self-signed CA: critical basicConstraints cA, keyCertSign + cRLSign + digitalSignature. */
export function createCertificateAuthority(opts: { commonName: string; validityDays?: number }): Promise<PemKeyPair> {
  return createCertificate({
    commonName: opts.commonName,
    ...(opts.validityDays !== undefined ? { validityDays: opts.validityDays } : {}),
    basicConstraints: 'ca',
    keyUsage: ['digitalSignature', 'keyCertSign', 'cRLSign'],
  });
}

/** A TLS server certificate signed by `ca`, with DNS and IP SANs and serverAuth. */
export function issueServingCertificate(
  ca: PemKeyPair,
  opts: { commonName: string; dnsNames?: string[]; ipAddresses?: string[]; validityDays?: number },
): Promise<PemKeyPair> {
  return createCertificate(
    {
      commonName: opts.commonName,
      dnsNames: opts.dnsNames ?? [],
      ipAddresses: opts.ipAddresses ?? [],
      ...(opts.validityDays !== undefined ? { validityDays: opts.validityDays } : {}),
      basicConstraints: 'leaf',
      keyUsage: ['digitalSignature'],
      extKeyUsage: [extKeyUsageOid.serverAuth],
    },
    ca,
  );
}

/** A TLS client certificate signed by `ca`: CN is the user name, each O a group (Kubernetes' x509 authenticator). */
export function issueClientCertificate(
  ca: PemKeyPair,
  opts: { commonName: string; organizations?: string[]; validityDays?: number },
): Promise<PemKeyPair> {
  return createCertificate(
    {
      commonName: opts.commonName,
      organizations: opts.organizations ?? [],
      ...(opts.validityDays !== undefined ? { validityDays: opts.validityDays } : {}),
      basicConstraints: 'leaf',
      keyUsage: ['digitalSignature'],
      extKeyUsage: [extKeyUsageOid.clientAuth],
    },
    ca,
  );
}
