import { X509Certificate } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  createCertificateAuthority,
  issueClientCertificate,
  issueServingCertificate,
  type PemKeyPair,
} from '@plat/x509';

/** Files of the development PKI under `<data-dir>/pki`. */
export interface DevPki {
  dir: string;
  ca: PemKeyPair;
  serving: PemKeyPair;
  admin: PemKeyPair;
  caFile: string;
  servingCertFile: string;
  servingKeyFile: string;
  /** What this start did: created everything, renewed leaf certificates, or reused them. */
  action: 'created' | 'renewed' | 'reused';
}

const caValidityDays = 3650;
const leafValidityDays = 365;
/** Leaf certificates are reissued (by the same CA) when they expire within this many days. */
const renewBeforeDays = 30;

async function readPair(dir: string, name: string): Promise<PemKeyPair | undefined> {
  try {
    const [certPem, keyPem] = await Promise.all([
      fs.readFile(path.join(dir, `${name}.crt`), 'utf8'),
      fs.readFile(path.join(dir, `${name}.key`), 'utf8'),
    ]);
    return { certPem, keyPem };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

async function writePair(dir: string, name: string, pair: PemKeyPair): Promise<void> {
  await fs.writeFile(path.join(dir, `${name}.crt`), pair.certPem, { mode: 0o644 });
  await fs.writeFile(path.join(dir, `${name}.key`), pair.keyPem, { mode: 0o600 });
}

function expiresSoon(pair: PemKeyPair, now: Date): boolean {
  const notAfter = new Date(new X509Certificate(pair.certPem).validTo).getTime();
  return notAfter - now.getTime() < renewBeforeDays * 86400_000;
}

function issuedBy(pair: PemKeyPair, ca: PemKeyPair): boolean {
  const cert = new X509Certificate(pair.certPem);
  const caCert = new X509Certificate(ca.certPem);
  return cert.checkIssued(caCert) && cert.verify(caCert.publicKey);
}

/**
 * Creates (first start) or loads the development PKI: a CA, a serving certificate for
 * localhost, 127.0.0.1 and ::1, and an admin client certificate (CN `plat-admin`, O
 * `system:masters`). Keys are written with mode 0600, the folder with 0700. Leaf certificates
 * that expire within 30 days, or that another CA signed, are reissued by the existing CA so that
 * kubeconfigs trusting the CA keep working.
 */
export async function ensureDevPki(dataDir: string, now = new Date()): Promise<DevPki> {
  const dir = path.join(dataDir, 'pki');
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  let action: DevPki['action'] = 'reused';
  let ca = await readPair(dir, 'ca');
  if (!ca) {
    ca = await createCertificateAuthority({ commonName: 'plat-dev-ca', validityDays: caValidityDays });
    await writePair(dir, 'ca', ca);
    action = 'created';
  }
  let serving = await readPair(dir, 'apiserver');
  if (!serving || expiresSoon(serving, now) || !issuedBy(serving, ca)) {
    serving = await issueServingCertificate(ca, {
      commonName: 'plat-apiserver',
      dnsNames: ['localhost'],
      ipAddresses: ['127.0.0.1', '::1'],
      validityDays: leafValidityDays,
    });
    await writePair(dir, 'apiserver', serving);
    if (action === 'reused') action = 'renewed';
  }
  let admin = await readPair(dir, 'admin');
  if (!admin || expiresSoon(admin, now) || !issuedBy(admin, ca)) {
    admin = await issueClientCertificate(ca, { commonName: 'plat-admin', organizations: ['system:masters'], validityDays: leafValidityDays });
    await writePair(dir, 'admin', admin);
    if (action === 'reused') action = 'renewed';
  }
  return {
    dir,
    ca,
    serving,
    admin,
    caFile: path.join(dir, 'ca.crt'),
    servingCertFile: path.join(dir, 'apiserver.crt'),
    servingKeyFile: path.join(dir, 'apiserver.key'),
    action,
  };
}
