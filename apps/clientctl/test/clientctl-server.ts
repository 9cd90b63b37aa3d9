import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createBuiltinAuthorizer, createX509Authenticator } from '@plat/auth';
import { clusterTrustBundleResource, reviewResources } from '@plat/registry';
import { createApiServer } from '@plat/server';
import { MemoryStorage } from '@plat/storage';
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate } from '@plat/x509';

export interface ClientctlServer {
  /** HOME and KUBECONFIG for clientctl (and kubectl). */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * A real API server (packages/server) over HTTPS on 127.0.0.1 with memory storage, the x509
 * authenticator and the built-in authorizer, and `<dir>/config`: a kubeconfig with a client
 * certificate and a context per user, each named after the user. `admin` (group system:masters)
 * is the current context; `otherUsers` get no groups.
 */
export async function startClientctlServer(dir: string, otherUsers: string[] = []): Promise<ClientctlServer> {
  const ca = await createCertificateAuthority({ commonName: 'clientctl-test-ca' });
  const serving = await issueServingCertificate(ca, { commonName: 'localhost', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const users = [{ name: 'admin', ...(await issueClientCertificate(ca, { commonName: 'admin', organizations: ['system:masters'] })) }];
  for (const name of otherUsers) users.push({ name, ...(await issueClientCertificate(ca, { commonName: name, organizations: [] })) });
  const storage = new MemoryStorage({});
  const server = createApiServer({
    storage,
    authenticator: createX509Authenticator({ clientCA: ca.certPem }),
    authorizer: createBuiltinAuthorizer({}),
    resources: [clusterTrustBundleResource(), ...reviewResources()],
    tls: { cert: serving.certPem, key: serving.keyPem, clientCA: ca.certPem },
  });
  const { url } = await server.listen({ host: '127.0.0.1', port: 0 });
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const kubeconfig = path.join(dir, 'config');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: test',
      `  cluster: {server: "${url}", certificate-authority-data: ${b64(ca.certPem)}}`,
      'users:',
      ...users.flatMap((u) => [`- name: ${u.name}`, `  user: {client-certificate-data: ${b64(u.certPem)}, client-key-data: ${b64(u.keyPem)}}`]),
      'contexts:',
      ...users.flatMap((u) => [`- name: ${u.name}`, `  context: {cluster: test, user: ${u.name}}`]),
      'current-context: admin',
      '',
    ].join('\n'),
  );
  return {
    env: { HOME: dir, KUBECONFIG: kubeconfig },
    async close() {
      await server.close();
      await storage.close();
    },
  };
}
