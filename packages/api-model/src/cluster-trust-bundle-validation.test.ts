import { createTrustAnchors, withPemHeader, type TrustAnchors } from '../test/trust-anchors.js';
import type { ClusterTrustBundle } from './cluster-trust-bundle.js';
import { validateClusterTrustBundle, validateClusterTrustBundleUpdate } from './cluster-trust-bundle-validation.js';
import { newInvalid } from './status.js';

let pki: TrustAnchors;
beforeAll(async () => {
  pki = await createTrustAnchors();
});

const signer = 'example.com/my-signer';
const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

function bundle(trustBundle: string, name = 'my-bundle', signerName?: string, extra: Partial<ClusterTrustBundle['metadata']> = {}): ClusterTrustBundle {
  return {
    apiVersion: 'certificates.plat.io/v1alpha1',
    kind: 'ClusterTrustBundle',
    metadata: { name, ...extra },
    spec: signerName === undefined ? { trustBundle } : { signerName, trustBundle },
  };
}

const messages = (obj: ClusterTrustBundle) => validateClusterTrustBundle(obj).map(String);
const omitted = (detail: string) => `spec.trustBundle: Invalid value: "<value omitted>": ${detail}`;

describe('ClusterTrustBundle trust bundle rules', () => {
  it('accepts a bundle of one CA certificate', () => {
    expect(messages(bundle(pki.caA))).toEqual([]);
  });

  it('accepts several CAs with data before, between and after the blocks', () => {
    const pem = `comment before\n${pki.caA}some text between\n\n${pki.caB}trailing words`;
    expect(messages(bundle(pem))).toEqual([]);
  });

  it('rejects a leaf (non-CA) certificate', () => {
    expect(messages(bundle(pki.caA + pki.leaf))).toEqual([omitted('entry 1 does not have the CA bit set')]);
    expect(messages(bundle(pki.client))).toEqual([omitted('entry 0 does not have the CA bit set')]);
  });

  it('rejects a certificate without basic constraints', () => {
    expect(messages(bundle(pki.noBasicConstraints + pki.caA))).toEqual([omitted('entry 0 does not have the CA bit set')]);
  });

  it('rejects PEM block headers', () => {
    expect(messages(bundle(pki.caA + withPemHeader(pki.caB)))).toEqual([omitted('entry 1 has PEM block headers')]);
  });

  it('rejects duplicate certificates with their indices', () => {
    expect(messages(bundle(pki.caA + pki.caB + pki.caA))).toEqual([omitted('duplicate trust anchor (indices [0 2])')]);
  });

  it('rejects a private-key block', () => {
    expect(messages(bundle(pki.caA + pki.privateKey))).toEqual([omitted('entry 1 has bad block type: PRIVATE KEY')]);
  });

  it('rejects a CERTIFICATE block that is not X.509', () => {
    const junk = `-----BEGIN CERTIFICATE-----\n${Buffer.from('not a certificate at all').toString('base64')}\n-----END CERTIFICATE-----\n`;
    expect(messages(bundle(junk))).toEqual([omitted('entry 0 does not parse as X.509')]);
  });

  // Go's pem.Decode skips a block whose base64 does not decode (src/encoding/pem/pem.go), so
  // Kubernetes' validateTrustBundle sees only the good CA and accepts the bundle.
  it('accepts a good CA next to a certificate block whose base64 is damaged, and reports the skipped block', () => {
    const lines = pki.caB.split('\n');
    lines[2] = `${lines[2]!.slice(0, 10)}*${lines[2]!.slice(11)}`;
    const skipped: string[] = [];
    expect(validateClusterTrustBundle(bundle(lines.join('\n') + pki.caA), { onSkippedBlock: (finding) => skipped.push(finding.detail) })).toEqual([]);
    expect(skipped).toEqual(['skipped a CERTIFICATE block at line 1 that does not parse as PEM: invalid base64 data']);
    expect(messages(bundle(lines.join('\n')))).toEqual([omitted('at least one trust anchor must be provided')]);
  });

  it('rejects an empty bundle and one with no PEM block', () => {
    expect(messages(bundle(''))).toEqual([omitted('at least one trust anchor must be provided')]);
    expect(messages(bundle('just some text\nwithout any block\n'))).toEqual([omitted('at least one trust anchor must be provided')]);
  });

  it('reports every bad entry, and then no duplicate or empty findings', () => {
    const pem = pki.leaf + pki.privateKey + pki.caA + pki.caA;
    expect(messages(bundle(pem))).toEqual([
      omitted('entry 0 does not have the CA bit set'),
      omitted('entry 1 has bad block type: PRIVATE KEY'),
    ]);
  });

  it('rejects a bundle over 1 MiB as Too long, and accepts one at the limit', () => {
    const filler = 'x'.repeat(1024 * 1024 - pki.caA.length - 1);
    expect(messages(bundle(`${pki.caA}${filler}\n`))).toEqual([]);
    expect(messages(bundle(`${pki.caA}${filler}\n!`))).toEqual(['spec.trustBundle: Too long: may not be more than 1048576 bytes']);
  });

  it('turns the errors into a 422 Status with causes', () => {
    const err = newInvalid({ group: 'certificates.plat.io', kind: 'ClusterTrustBundle' }, 'my-bundle', validateClusterTrustBundle(bundle(pki.leaf, 'a:b')));
    expect(err.code).toBe(422);
    expect(err.status.message).toBe(
      'ClusterTrustBundle.certificates.plat.io "my-bundle" is invalid: [metadata.name: Invalid value: "a:b": ClusterTrustBundle without signer name must not have ":" in its name, spec.trustBundle: Invalid value: "<value omitted>": entry 0 does not have the CA bit set]',
    );
    expect(err.status.details?.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.name',
        message: 'Invalid value: "a:b": ClusterTrustBundle without signer name must not have ":" in its name',
      },
      { reason: 'FieldValueInvalid', field: 'spec.trustBundle', message: 'Invalid value: "<value omitted>": entry 0 does not have the CA bit set' },
    ]);
  });
});

describe('ClusterTrustBundle name and signer rules', () => {
  it('accepts a signer bundle named <signer with colons>:<suffix>', () => {
    expect(messages(bundle(pki.caA, 'example.com:my-signer:bundle-1', signer))).toEqual([]);
    expect(messages(bundle(pki.caA, 'example.com:a.b:x', 'example.com/a.b'))).toEqual([]);
  });

  it('rejects a signer bundle without the signer prefix', () => {
    expect(messages(bundle(pki.caA, 'my-bundle', signer))).toEqual([
      'metadata.name: Invalid value: "my-bundle": ClusterTrustBundle for signerName example.com/my-signer must be named with prefix example.com:my-signer:',
    ]);
    expect(messages(bundle(pki.caA, 'example.com:other:b', signer))).toEqual([
      'metadata.name: Invalid value: "example.com:other:b": ClusterTrustBundle for signerName example.com/my-signer must be named with prefix example.com:my-signer:',
    ]);
  });

  it('checks the suffix after the prefix as a DNS subdomain', () => {
    expect(messages(bundle(pki.caA, 'example.com:my-signer:Bad_Suffix', signer))).toEqual([
      `metadata.name: Invalid value: "example.com:my-signer:Bad_Suffix": ${subdomainMsg}`,
    ]);
    expect(messages(bundle(pki.caA, 'example.com:my-signer:', signer))).toEqual([
      `metadata.name: Invalid value: "example.com:my-signer:": ${subdomainMsg}`,
    ]);
  });

  it('forbids any ":" in the name of a bundle without signer, in both directions of the rule', () => {
    expect(messages(bundle(pki.caA, 'example.com:my-signer:bundle-1'))).toEqual([
      'metadata.name: Invalid value: "example.com:my-signer:bundle-1": ClusterTrustBundle without signer name must not have ":" in its name',
    ]);
    expect(messages(bundle(pki.caA, 'example.com:my-signer:bundle-1', ''))).toHaveLength(1);
  });

  it('applies the usual metadata.name rules', () => {
    expect(messages(bundle(pki.caA, ''))).toEqual(['metadata.name: Required value: name or generateName is required']);
    expect(messages(bundle(pki.caA, 'My_Bundle'))).toEqual([`metadata.name: Invalid value: "My_Bundle": ${subdomainMsg}`]);
    const long = 'a'.repeat(254);
    expect(messages(bundle(pki.caA, long))).toEqual([`metadata.name: Invalid value: "${long}": must be no more than 253 characters`]);
    expect(messages(bundle(pki.caA, 'a'.repeat(253)))).toEqual([]);
  });

  it('checks generateName against the signer rule as a prefix', () => {
    const ok = bundle(pki.caA, 'example.com:my-signer:b-x7k2p', signer, { generateName: 'example.com:my-signer:b-' });
    expect(messages(ok)).toEqual([]);
    const bad = bundle(pki.caA, 'my-bundle-x7k2p', signer, { generateName: 'my-bundle-' });
    expect(messages(bad)).toEqual([
      'metadata.generateName: Invalid value: "my-bundle-": ClusterTrustBundle for signerName example.com/my-signer must be named with prefix example.com:my-signer:',
      'metadata.name: Invalid value: "my-bundle-x7k2p": ClusterTrustBundle for signerName example.com/my-signer must be named with prefix example.com:my-signer:',
    ]);
  });

  it('forbids a namespace on this cluster-scoped kind and validates labels and annotations', () => {
    expect(messages(bundle(pki.caA, 'my-bundle', undefined, { namespace: 'default' }))).toEqual([
      'metadata.namespace: Forbidden: not allowed on this type',
    ]);
    expect(messages(bundle(pki.caA, 'my-bundle', undefined, { labels: { 'team/x/y': 'a' }, annotations: { ok: 'fine' } }))).toHaveLength(1);
    expect(messages(bundle(pki.caA, 'my-bundle', undefined, { labels: { team: 'a b' } }))[0]).toMatch(
      /^metadata\.labels: Invalid value: "a b": a valid label must be an empty string/,
    );
  });

  it.each([
    ['foo', "spec.signerName: Invalid value: \"foo\": must be a fully qualified domain and path of the form 'example.com/signer-name'"],
    ['a.com/b/c', "spec.signerName: Invalid value: \"a.com/b/c\": must be a fully qualified domain and path of the form 'example.com/signer-name'"],
    ['example/x', 'spec.signerName: Invalid value: "example": should be a domain with at least two segments separated by dots'],
    ['Example.com/x', `spec.signerName: Invalid value: "Example.com": validating label "Example": ${labelMsg}`],
    ['example..com/x', `spec.signerName: Invalid value: "example..com": validating label "": ${labelMsg}`],
    ['example.com/Bad', `spec.signerName: Invalid value: "Bad": validating label "Bad": ${subdomainMsg}`],
    ['example.com/', `spec.signerName: Invalid value: "": validating label "": ${subdomainMsg}`],
  ])('rejects the signer name %j', (signerName, expected) => {
    const name = `${signerName.replaceAll('/', ':')}:b`;
    expect(messages(bundle(pki.caA, name, signerName))).toContain(expected);
  });

  it('rejects an over-long signer name and domain', () => {
    const domain = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.com`; // 247
    const path = `${'p'.repeat(201)}.${'q'.repeat(60)}.${'r'.repeat(60)}`; // 323
    const signerName = `${domain}/${path}`;
    expect(signerName.length).toBe(571);
    const atLimit = validateClusterTrustBundle(bundle(pki.caA, 'x', signerName)).map(String);
    expect(atLimit.filter((m) => m.startsWith('spec.signerName'))).toEqual([]);
    const over = validateClusterTrustBundle(bundle(pki.caA, 'x', `${signerName}x`)).map(String);
    expect(over).toContain('spec.signerName: Too long: may not be more than 571 bytes');
    const longDomain = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.comxxxxxxx/x`; // domain of 254
    expect(validateClusterTrustBundle(bundle(pki.caA, 'x', longDomain)).map(String)).toContain(
      'spec.signerName: Too long: may not be more than 253 bytes',
    );
  });
});

describe('ClusterTrustBundle update rules', () => {
  const stored = (trustBundle: string, signerName?: string, name = 'my-bundle') => {
    const b = bundle(trustBundle, name, signerName);
    b.metadata = { ...b.metadata, resourceVersion: '7', uid: 'u-1', creationTimestamp: '2026-01-02T03:04:05Z' };
    return b;
  };

  it('accepts an update that replaces the CAs', () => {
    expect(validateClusterTrustBundleUpdate(stored(pki.caB), stored(pki.caA)).map(String)).toEqual([]);
  });

  it('makes signerName immutable', () => {
    const old = stored(pki.caA, signer, 'example.com:my-signer:b');
    const changed = stored(pki.caA, 'example.com/other', 'example.com:my-signer:b');
    expect(validateClusterTrustBundleUpdate(changed, old).map(String)).toEqual([
      'metadata.name: Invalid value: "example.com:my-signer:b": ClusterTrustBundle for signerName example.com/other must be named with prefix example.com:other:',
      'spec.signerName: Invalid value: "example.com/other": field is immutable',
    ]);
    const cleared = stored(pki.caA, '', 'example-b');
    cleared.metadata!.name = 'example.com:my-signer:b';
    expect(validateClusterTrustBundleUpdate(cleared, old).map(String)).toContain('spec.signerName: Invalid value: "": field is immutable');
  });

  it('parses the trust bundle only when it changes', () => {
    // A stored bundle that today's rules reject (for example from an older parser) stays updatable.
    const legacy = stored(pki.leaf);
    const relabelled = stored(pki.leaf);
    relabelled.metadata!.labels = { team: 'a' };
    expect(validateClusterTrustBundleUpdate(relabelled, legacy).map(String)).toEqual([]);
    expect(validateClusterTrustBundleUpdate(stored(pki.caA + pki.leaf), legacy).map(String)).toEqual([
      omitted('entry 1 does not have the CA bit set'),
    ]);
  });

  it('applies the metadata update rules', () => {
    const old = stored(pki.caA);
    const next = stored(pki.caA, undefined, 'renamed');
    next.metadata!.resourceVersion = '';
    next.metadata!.uid = 'u-2';
    next.metadata!.creationTimestamp = '2026-02-02T00:00:00Z';
    expect(validateClusterTrustBundleUpdate(next, old).map(String)).toEqual([
      'metadata.resourceVersion: Invalid value: "": must be specified for an update',
      'metadata.name: Invalid value: "renamed": field is immutable',
      'metadata.uid: Invalid value: "u-2": field is immutable',
      'metadata.creationTimestamp: Invalid value: 2026-02-02 00:00:00 +0000 UTC: field is immutable',
    ]);
  });
});
