// Real certificates for ClusterTrustBundle tests, generated with @plat/x509's dev PKI.
import { createCertificate, createCertificateAuthority, issueClientCertificate, issueServingCertificate } from '@plat/x509';

export interface TrustAnchors {
  /** Two independent self-signed CAs. */
  caA: string;
  caB: string;
  /** A serving certificate (basicConstraints cA=false) issued by caA. */
  leaf: string;
  /** A client certificate (cA=false) issued by caA. */
  client: string;
  /** A certificate with no basicConstraints extension at all. */
  noBasicConstraints: string;
  /** caA's private key, a non-CERTIFICATE block. */
  privateKey: string;
}

export async function createTrustAnchors(): Promise<TrustAnchors> {
  const caA = await createCertificateAuthority({ commonName: 'plat test root A' });
  const caB = await createCertificateAuthority({ commonName: 'plat test root B' });
  const leaf = await issueServingCertificate(caA, { commonName: 'server', dnsNames: ['server.example.com'] });
  const client = await issueClientCertificate(caA, { commonName: 'alice', organizations: ['devs'] });
  const noBasicConstraints = await createCertificate({ commonName: 'no constraints', basicConstraints: 'absent' });
  return {
    caA: caA.certPem,
    caB: caB.certPem,
    leaf: leaf.certPem,
    client: client.certPem,
    noBasicConstraints: noBasicConstraints.certPem,
    privateKey: caA.keyPem,
  };
}

/** The same PEM block with an RFC 1421 header line added after BEGIN. */
export function withPemHeader(pem: string): string {
  return pem.replace(/(-----BEGIN CERTIFICATE-----\r?\n)/, '$1Proc-Type: 4,ENCRYPTED\n\n');
}
