import * as assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientError, RestClient, createPrinter, decodeObjects, loadKubeConfig, resolveRestConfig } from '@plat/client';

// A kubeconfig file (the format kubectl reads), merged and resolved by kubectl's rules.
const dir = await mkdtemp(join(tmpdir(), 'plat-client-'));
const kubeconfig = join(dir, 'config');
await writeFile(
  kubeconfig,
  `apiVersion: v1
kind: Config
clusters: [{ name: local, cluster: { server: 'https://127.0.0.1:1', insecure-skip-tls-verify: true } }]
users: [{ name: ada, user: { token: t0ken-ada } }]
contexts: [{ name: local, context: { cluster: local, user: ada } }]
current-context: local
`,
);
const config = resolveRestConfig(loadKubeConfig({ explicitPath: kubeconfig }), { as: 'system:serviceaccount:default:reader' });
assert.equal(config.server, 'https://127.0.0.1:1');

// Manifests: multi-document YAML (or JSON, or a List) into objects, as `-f` reads them.
const objects = decodeObjects(
  `apiVersion: certificates.plat.io/v1alpha1
kind: ClusterTrustBundle
metadata: { name: roots-a }
spec: { trustBundle: "" }
---
apiVersion: certificates.plat.io/v1alpha1
kind: ClusterTrustBundle
metadata: { name: roots-b }
spec: { trustBundle: "" }
`,
  'bundles.yaml',
);
assert.deepEqual(objects.map((o) => o.metadata?.name), ['roots-a', 'roots-b']);

// kubectl's printers: -o name, jsonpath, go-template, yaml, json.
assert.equal(createPrinter({ output: 'name' }).print(objects[0]!), 'clustertrustbundle.certificates.plat.io/roots-a\n');
assert.equal(createPrinter({ output: 'jsonpath={.metadata.name}' }).print(objects[1]!), 'roots-b');

// The REST client talks to an API server (see @plat/server's example); nothing listens on port
// 1, so this request fails with a ClientError, as `clientctl get` reports it.
const client = new RestClient(config);
try {
  await client.request({ path: '/apis/certificates.plat.io/v1alpha1/clustertrustbundles' });
  assert.fail('expected a connection error');
} catch (err) {
  assert.ok(err instanceof ClientError);
  console.log(err.code, err.message);
} finally {
  await client.close();
  await rm(dir, { recursive: true, force: true });
}
