import { createCertificateAuthority, issueClientCertificate, type PemKeyPair } from '@plat/x509';

/** A client CA and a foreign CA, issuing client certificates for tests. */
export async function createIssuer(): Promise<{
  ca: PemKeyPair;
  client(commonName: string, organizations?: string[]): Promise<PemKeyPair>;
  foreignClient(commonName: string, organizations?: string[]): Promise<PemKeyPair>;
}> {
  const ca = await createCertificateAuthority({ commonName: 'client-ca' });
  const foreign = await createCertificateAuthority({ commonName: 'foreign-ca' });
  return {
    ca,
    client: (commonName, organizations = []) => issueClientCertificate(ca, { commonName, organizations }),
    foreignClient: (commonName, organizations = []) => issueClientCertificate(foreign, { commonName, organizations }),
  };
}
