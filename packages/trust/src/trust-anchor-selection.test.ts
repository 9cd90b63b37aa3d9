import { compileSelection, validateTrustAnchorSelection } from './trust-anchor-selection.js';

const messages = (s: Parameters<typeof validateTrustAnchorSelection>[0]) => validateTrustAnchorSelection(s).map((e) => e.toString());

describe('validateTrustAnchorSelection (the kubelet projection rules)', () => {
  it('accepts a name, or a signer with or without a label selector', () => {
    expect(messages({ name: 'roots' })).toEqual([]);
    expect(messages({ name: 'example.com:signer:roots' })).toEqual([]);
    expect(messages({ signerName: 'example.com/signer' })).toEqual([]);
    expect(messages({ signerName: 'example.com/signer', labelSelector: { matchLabels: { a: 'b' } } })).toEqual([]);
  });

  it('rejects both, neither, empty values and a selector beside a name with Kubernetes\' messages', () => {
    expect(messages({ name: 'a', signerName: 'example.com/s' })).toEqual([
      'clusterTrustBundle: Invalid value: "{name: a, signerName: example.com/s}": only one of name and signerName may be used',
    ]);
    expect(messages({})).toEqual(['clusterTrustBundle: Required value: either name or signerName must be specified']);
    expect(messages({ name: '' })).toEqual(['name: Required value: must be a valid object name']);
    expect(messages({ signerName: '' })).toEqual(['signerName: Required value: must be a valid signer name']);
    expect(messages({ name: 'a', labelSelector: {} })).toEqual(['labelSelector: Invalid value: "{}": labelSelector must be unset if name is specified']);
  });

  it('checks names, signer names and selectors as the API does', () => {
    expect(messages({ name: 'Bad_Name' })[0]).toMatch(/^name: Invalid value: "Bad_Name": not a valid clustertrustbundlename: a lowercase RFC 1123 subdomain/);
    expect(messages({ signerName: 'no-slash' })).toEqual([
      "signerName: Invalid value: \"no-slash\": must be a fully qualified domain and path of the form 'example.com/signer-name'",
    ]);
    expect(messages({ signerName: 'example.com/s', labelSelector: { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] } })).toEqual([
      "labelSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    ]);
  });
});

describe('compileSelection', () => {
  it('lists one bundle by name with a metadata.name field selector', () => {
    const c = compileSelection({ name: 'roots' });
    expect(c.listQuery).toEqual({ fieldSelector: 'metadata.name=roots' });
    expect(c.matches({ metadata: { name: 'roots' } })).toBe(true);
    expect(c.matches({ metadata: { name: 'other' } })).toBe(false);
  });

  it('lists a signer with spec.signerName and the selector in query form', () => {
    const c = compileSelection({
      signerName: 'example.com/signer',
      labelSelector: { matchLabels: { team: 'a' }, matchExpressions: [{ key: 'stage', operator: 'NotIn', values: ['old'] }] },
    });
    expect(c.listQuery).toEqual({ fieldSelector: 'spec.signerName=example.com/signer', labelSelector: 'stage notin (old),team=a' });
    expect(c.matches({ spec: { signerName: 'example.com/signer' }, metadata: { labels: { team: 'a' } } })).toBe(true);
    expect(c.matches({ spec: { signerName: 'example.com/signer' }, metadata: { labels: { team: 'a', stage: 'old' } } })).toBe(false);
    expect(c.matches({ spec: { signerName: 'example.com/other' }, metadata: { labels: { team: 'a' } } })).toBe(false);
  });

  it('matches all of a signer\'s bundles with {} and none without a selector (no request at all)', () => {
    const all = compileSelection({ signerName: 'example.com/signer', labelSelector: {} });
    expect(all.listQuery).toEqual({ fieldSelector: 'spec.signerName=example.com/signer' });
    expect(all.matches({ spec: { signerName: 'example.com/signer' } })).toBe(true);
    const none = compileSelection({ signerName: 'example.com/signer' });
    expect(none.listQuery).toBeUndefined();
    expect(none.matches({ spec: { signerName: 'example.com/signer' } })).toBe(false);
    expect(none.description).toBe('signer "example.com/signer" with no label selector (matches nothing)');
  });

  it('throws TrustError InvalidSelection with every problem', () => {
    expect(() => compileSelection({ signerName: 'x', labelSelector: { matchExpressions: [{ key: 'a', operator: 'Gt' }] } })).toThrow(
      expect.objectContaining({ name: 'TrustError', code: 'InvalidSelection', message: expect.stringMatching(/^invalid trust anchor selection: \[signerName: .*, labelSelector.*operator.*\]$/) }),
    );
  });
});
