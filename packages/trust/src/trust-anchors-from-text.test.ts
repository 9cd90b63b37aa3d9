import { canonicalTrustBundle, createCertificate, createCertificateAuthority, type PemKeyPair } from '@plat/x509';
import { trustAnchorsFromText } from './trust-anchors-from-text.js';

let a: PemKeyPair;
let b: PemKeyPair;
let leaf: PemKeyPair;

beforeAll(async () => {
  [a, b] = await Promise.all([createCertificateAuthority({ commonName: 'text-a' }), createCertificateAuthority({ commonName: 'text-b' })]);
  leaf = await createCertificate({ commonName: 'text-leaf', basicConstraints: 'leaf' }, a);
});

const manifest = (name: string, pem: string) =>
  `apiVersion: certificates.plat.io/v1alpha1\nkind: ClusterTrustBundle\nmetadata:\n  name: ${name}\nspec:\n  trustBundle: |\n${pem
    .trimEnd()
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')}\n`;

describe('trustAnchorsFromText', () => {
  it('reads a PEM bundle into canonical anchors', () => {
    const { anchors, problems } = trustAnchorsFromText(b.certPem + a.certPem + a.certPem, 'ca.pem');
    expect(anchors.pem).toBe(canonicalTrustBundle([a.certPem, b.certPem]).pem);
    expect(anchors.sources).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('merges the trustBundles of ClusterTrustBundle manifests, YAML or JSON', () => {
    const yaml = `${manifest('one', a.certPem)}---\n${manifest('two', b.certPem)}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: other}\n`;
    const fromYaml = trustAnchorsFromText(yaml, 'bundles.yaml');
    expect(fromYaml.anchors.pem).toBe(canonicalTrustBundle([a.certPem, b.certPem]).pem);
    expect(fromYaml.anchors.sources.map((s) => s.name)).toEqual(['one', 'two']);
    const json = JSON.stringify({ apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name: 'j' }, spec: { trustBundle: a.certPem } });
    expect(trustAnchorsFromText(json, 'b.json').anchors.anchors).toHaveLength(1);
  });

  it('lists what a stored bundle could not hold, and shows a leaf as an anchor', () => {
    const text = `${a.certPem}${a.keyPem}-----BEGIN CERTIFICATE-----\nAAEC\n-----END CERTIFICATE-----\n${leaf.certPem}`;
    const { anchors, problems } = trustAnchorsFromText(text, 'mixed.pem');
    expect(problems).toEqual(['entry 1 has bad block type: PRIVATE KEY', 'entry 2 does not parse as X.509']);
    expect(anchors.anchors.map((x) => [x.subject, x.ca])).toEqual(expect.arrayContaining([['CN=text-leaf', false]]));
  });

  it('fails on a file without any certificate', () => {
    expect(() => trustAnchorsFromText('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n', 'x.yaml')).toThrow(
      expect.objectContaining({ code: 'FileFailed', message: 'no certificate found in x.yaml' }),
    );
    expect(() => trustAnchorsFromText('hello\n', 'x.txt')).toThrow(
      expect.objectContaining({ code: 'FileFailed', message: expect.stringMatching(/^x.txt: neither a PEM bundle nor ClusterTrustBundle manifests: /) }),
    );
  });
});
