import * as assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isStatusError } from '@plat/api-model';
import { createBearerTokenAuthenticator, createBuiltinAuthorizer, createStaticTokenAuthenticator, createUnionAuthenticator } from '@plat/auth';
import { RestClient, loadKubeConfig, resolveRestConfig } from '@plat/client';
import { clusterTrustBundleResource } from '@plat/registry';
import { createApiServer } from '@plat/server';
import { openStorage } from '@plat/storage';
import { createMetricsRegistry } from '@plat/telemetry';
import { createCertificateAuthority, issueServingCertificate } from '@plat/x509';

// The parts an API server is built from: TLS material, storage, identity, metrics.
const ca = await createCertificateAuthority({ commonName: 'example-ca' });
const serving = await issueServingCertificate(ca, { commonName: 'localhost', ipAddresses: ['127.0.0.1'] });
const tokens = new Map([
  ['t0ken-admin', { username: 'admin', groups: ['system:masters'] }],
  ['t0ken-ada', { username: 'ada', groups: ['dev'] }],
]);
const server = createApiServer({
  storage: await openStorage({ backend: 'memory' }),
  authenticator: createUnionAuthenticator([createBearerTokenAuthenticator(createStaticTokenAuthenticator(tokens))]),
  authorizer: createBuiltinAuthorizer(),
  resources: [clusterTrustBundleResource()],
  tls: { cert: serving.certPem, key: serving.keyPem },
  metricsRegistry: createMetricsRegistry(),
});
const { url } = await server.listen({ host: '127.0.0.1', port: 0 });

// A client as clientctl (or kubectl) has it: a kubeconfig with the server's CA and a token.
const dir = await mkdtemp(join(tmpdir(), 'plat-registry-'));
const clientFor = async (token: string) => {
  const file = join(dir, token);
  const caData = Buffer.from(ca.certPem).toString('base64');
  await writeFile(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'example', cluster: { server: url, 'certificate-authority-data': caData } }],
      users: [{ name: 'user', user: { token } }],
      contexts: [{ name: 'example', context: { cluster: 'example', user: 'user' } }],
      'current-context': 'example',
    }),
  );
  return new RestClient(resolveRestConfig(loadKubeConfig({ explicitPath: file })));
};
const admin = await clientFor('t0ken-admin');
const ada = await clientFor('t0ken-ada');
const path = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';
try {
  const created = await admin.request<{ metadata: { name: string; resourceVersion: string } }>({
    method: 'POST',
    path,
    body: { apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name: 'example-roots' }, spec: { trustBundle: ca.certPem } },
  });
  assert.equal(created.statusCode, 201);

  // Every authenticated user may read ClusterTrustBundles; writing needs more (403 here).
  const list = await ada.request<{ items: { metadata: { name: string } }[] }>({ path });
  assert.deepEqual(list.body.items.map((i) => i.metadata.name), ['example-roots']);
  const denied = await ada.request({ method: 'DELETE', path: `${path}/example-roots` }).catch((err: unknown) => err);
  assert.ok(isStatusError(denied) && denied.status.code === 403);
  console.log(denied.message);

  // Validation answers 422 with Kubernetes' field errors.
  const invalid = await admin
    .request({ method: 'POST', path, body: { apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name: 'empty' }, spec: { trustBundle: '' } } })
    .catch((err: unknown) => err);
  assert.ok(isStatusError(invalid) && invalid.status.code === 422);

  const metrics = await admin.request<string>({ path: '/metrics', accept: 'text/plain' });
  assert.match(String(metrics.body), /apiserver_request_total\{verb="POST"/);
} finally {
  await Promise.all([admin.close(), ada.close()]);
  await server.close();
  await rm(dir, { recursive: true, force: true });
}
