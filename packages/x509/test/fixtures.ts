import { createCertificate, createCertificateAuthority } from '../src/dev-pki.js';
import type { PemKeyPair } from '../src/dev-pki.js';

export interface TrustBundleFixtures {
  caA: PemKeyPair;
  caB: PemKeyPair;
  leaf: PemKeyPair;
  noBasicConstraints: PemKeyPair;
}

/** Real certificates for the tests, generated once per test file. */
export async function trustBundleFixtures(): Promise<TrustBundleFixtures> {
  const caA = await createCertificateAuthority({ commonName: 'fixture-ca-a' });
  const caB = await createCertificateAuthority({ commonName: 'fixture-ca-b' });
  const leaf = await createCertificate({ commonName: 'fixture-leaf', basicConstraints: 'leaf', keyUsage: ['digitalSignature'] }, caA);
  const noBasicConstraints = await createCertificate({ commonName: 'fixture-no-bc', basicConstraints: 'absent', keyUsage: ['keyCertSign'] });
  return { caA, caB, leaf, noBasicConstraints };
}

/** Inserts PEM headers after the BEGIN line of a single-block PEM. */
export function withHeaders(pem: string, headers: string): string {
  const firstNewline = pem.indexOf('\n');
  return pem.slice(0, firstNewline + 1) + headers + '\n' + pem.slice(firstNewline + 1);
}
