import { canonicalTrustBundle, type PemKeyPair } from '@plat/x509';
import { sendList, sendJson, sendStatus, startScriptedServer, threeCas, bundleObject, type ScriptedServer } from '../test/scripted-server.js';
import { resolveTrustAnchors } from './resolve-trust-anchors.js';

let server: ScriptedServer;
let a: PemKeyPair, b: PemKeyPair, c: PemKeyPair;
const signer = 'example.com/signer';

beforeAll(async () => {
  [server, [a, b, c]] = await Promise.all([startScriptedServer(), threeCas()]);
});
afterAll(() => server.close());
beforeEach(() => server.nextTest());

describe('resolveTrustAnchors', () => {
  it('gets one bundle by name and returns its canonical PEM, digest, anchors and source', async () => {
    server.handler = (_req, res) => sendJson(res, 200, bundleObject({ name: 'roots', resourceVersion: '41', pem: b.certPem + a.certPem }));
    const got = await resolveTrustAnchors(server.client(), { name: 'roots' });
    const expected = canonicalTrustBundle([a.certPem, b.certPem]);
    expect(got.pem).toBe(expected.pem);
    expect(got.digest).toBe(expected.digest);
    expect(got.anchors.map((x) => x.subject).sort()).toEqual(['CN=trust-test-ca-1', 'CN=trust-test-ca-2']);
    expect(got.sources).toEqual([{ name: 'roots', resourceVersion: '41', signerName: '' }]);
    expect(server.requests.map((r) => r.url.pathname)).toEqual(['/apis/certificates.plat.io/v1alpha1/clustertrustbundles/roots']);
  });

  it('reports a missing name as the server\'s NotFound, or as no anchors when optional', async () => {
    server.handler = (_req, res) => sendStatus(res, 404, 'NotFound', 'clustertrustbundles.certificates.plat.io "gone" not found');
    await expect(resolveTrustAnchors(server.client(), { name: 'gone' })).rejects.toMatchObject({
      name: 'StatusError',
      reason: 'NotFound',
      message: 'clustertrustbundles.certificates.plat.io "gone" not found',
    });
    const empty = await resolveTrustAnchors(server.client(), { name: 'gone', optional: true });
    expect(empty).toMatchObject({ pem: '', anchors: [], sources: [] });
  });

  it('merges every page of a signer\'s matching bundles, deduplicated', async () => {
    server.handler = (_req, res, url) => {
      if (!url.searchParams.get('continue')) {
        sendList(res, '90', [{ name: 'example.com:signer:one', resourceVersion: '10', signerName: signer, labels: { team: 'a' }, pem: a.certPem + b.certPem }], 'page-2');
      } else {
        sendList(res, '90', [{ name: 'example.com:signer:two', resourceVersion: '12', signerName: signer, labels: { team: 'a' }, pem: b.certPem + c.certPem }]);
      }
    };
    const got = await resolveTrustAnchors(server.client(), { signerName: signer, labelSelector: { matchLabels: { team: 'a' } } });
    expect(got.pem).toBe(canonicalTrustBundle([a.certPem, b.certPem, c.certPem]).pem);
    expect(got.sources.map((s) => [s.name, s.resourceVersion, s.signerName])).toEqual([
      ['example.com:signer:one', '10', signer],
      ['example.com:signer:two', '12', signer],
    ]);
    const [first, second] = server.requests.map((r) => Object.fromEntries(r.url.searchParams));
    expect(first).toEqual({ fieldSelector: `spec.signerName=${signer}`, labelSelector: 'team=a', limit: '500' });
    expect(second).toEqual({ ...first, continue: 'page-2' });
  });

  it('keeps only the bundles that match, whatever a server sends', async () => {
    server.handler = (_req, res) =>
      sendList(res, '5', [
        { name: 'example.com:signer:one', resourceVersion: '1', signerName: signer, labels: { team: 'a' }, pem: a.certPem },
        { name: 'example.com:signer:two', resourceVersion: '2', signerName: signer, labels: { team: 'b' }, pem: b.certPem },
        { name: 'other.com:signer:x', resourceVersion: '3', signerName: 'other.com/signer', labels: { team: 'a' }, pem: c.certPem },
      ]);
    const got = await resolveTrustAnchors(server.client(), { signerName: signer, labelSelector: { matchLabels: { team: 'a' } } });
    expect(got.sources.map((s) => s.name)).toEqual(['example.com:signer:one']);
  });

  it('says that nothing matched as the kubelet does, unless optional; an absent selector asks nothing', async () => {
    server.handler = (_req, res) => sendList(res, '5', []);
    await expect(resolveTrustAnchors(server.client(), { signerName: signer, labelSelector: {} })).rejects.toMatchObject({
      name: 'TrustError',
      code: 'NoMatch',
      message: `combination of signerName and labelSelector matched zero ClusterTrustBundles (signer "${signer}")`,
    });
    expect((await resolveTrustAnchors(server.client(), { signerName: signer, labelSelector: {}, optional: true })).pem).toBe('');
    server.requests.length = 0;
    await expect(resolveTrustAnchors(server.client(), { signerName: signer })).rejects.toMatchObject({ code: 'NoMatch' });
    expect(server.requests).toEqual([]);
  });

  it('rejects an invalid selection before any request', async () => {
    await expect(resolveTrustAnchors(server.client(), { name: 'a', signerName: signer })).rejects.toMatchObject({ code: 'InvalidSelection' });
    expect(server.requests).toEqual([]);
  });
});
