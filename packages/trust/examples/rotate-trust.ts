import * as assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestClient, loadKubeConfig, resolveRestConfig } from '@plat/client';
import { TrustAgent, anchorsExpiringWithin, isTrustError, resolveTrustAnchors, trustAnchorNotes, trustAnchorsFromText } from '@plat/trust';
import { createCertificateAuthority, issueServingCertificate } from '@plat/x509';
import { request } from 'undici';

// A service whose server certificate moves from an old CA to a new one.
const oldCa = await createCertificateAuthority({ commonName: 'mesh-ca-2025', validityDays: 20 });
const newCa = await createCertificateAuthority({ commonName: 'mesh-ca-2026' });
const oldLeaf = await issueServingCertificate(oldCa, { commonName: 'localhost', ipAddresses: ['127.0.0.1'] });
const newLeaf = await issueServingCertificate(newCa, { commonName: 'localhost', ipAddresses: ['127.0.0.1'] });
const server = createServer({ cert: oldLeaf.certPem, key: oldLeaf.keyPem }, (_req, res) => res.end('ok'));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
const get = async (dispatcher: TrustAgent) => (await request(url, { dispatcher })).body.text();

// Anchors in canonical form (here from PEM text; resolveTrustAnchors reads them from
// ClusterTrustBundles), with what an operator should notice.
const before = trustAnchorsFromText(oldCa.certPem, 'mesh-ca.pem').anchors;
for (const a of before.anchors) console.log(a.subject, a.sha256.slice(0, 16), a.notAfter.toISOString(), trustAnchorNotes(a));
assert.deepEqual(anchorsExpiringWithin(before.anchors, 30 * 86_400_000).map((a) => a.subject), ['CN=mesh-ca-2025']);

// An undici dispatcher that verifies with the current anchors.
const agent = new TrustAgent({ anchors: before });
assert.equal(await get(agent), 'ok');

// The rotation: publish the new anchor beside the old, then switch issuance. No restart: the
// agent's next connections verify with both anchors (followTrustAnchors calls update for you).
agent.update(trustAnchorsFromText(oldCa.certPem + newCa.certPem, 'mesh-ca.pem').anchors);
server.setSecureContext({ cert: newLeaf.certPem, key: newLeaf.keyPem });
server.closeIdleConnections();
assert.equal(await get(agent), 'ok');

// Retire the old anchor: a server still on the old CA is refused from then on.
agent.update(trustAnchorsFromText(newCa.certPem, 'mesh-ca.pem').anchors);
assert.equal(await get(agent), 'ok');
await agent.close();
server.close();

// Against an API server the anchors come from ClusterTrustBundles: every bundle of a signer
// here ({} selects all of them). Nothing listens on port 1, so this fails as clientctl reports it.
const dir = await mkdtemp(join(tmpdir(), 'plat-trust-'));
await writeFile(
  join(dir, 'config'),
  `apiVersion: v1
kind: Config
clusters: [{ name: local, cluster: { server: 'https://127.0.0.1:1', insecure-skip-tls-verify: true } }]
users: [{ name: ada, user: { token: t0ken-ada } }]
contexts: [{ name: local, context: { cluster: local, user: ada } }]
current-context: local
`,
);
const client = new RestClient(resolveRestConfig(loadKubeConfig({ explicitPath: join(dir, 'config') })));
await assert.rejects(resolveTrustAnchors(client, { signerName: 'example.com/mesh', labelSelector: {} }), /refused/);
// A selection is checked before any request, with the API's projection rules.
await assert.rejects(resolveTrustAnchors(client, { name: 'roots', signerName: 'example.com/mesh' }), (err) => isTrustError(err, 'InvalidSelection'));
await client.close();
await rm(dir, { recursive: true, force: true });
