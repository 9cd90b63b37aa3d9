import { createCertificate, trustAnchorFacts, type PemKeyPair } from '@plat/x509';
import { bundle, ctbPath, startCluster, type TestCluster } from '../../../test/cluster.js';
import { ClusterTrustBundleCache } from './cluster-trust-bundle-cache.js';
import { anchorExpiryWarningWindowMs, clusterTrustBundleStrategy, clusterTrustBundleWarnings } from './cluster-trust-bundle.js';

const day = 24 * 3600_000;

/** A CA certificate valid from `fromDays` (relative to now) for `days` days (plus dev-pki's five minutes). */
function ca(commonName: string, fromDays: number, days: number): Promise<PemKeyPair> {
  return createCertificate({ commonName, basicConstraints: 'ca', keyUsage: ['keyCertSign'], notBefore: new Date(Date.now() + fromDays * day), validityDays: days });
}

let expired: string;
let notYetValid: string;
let soon: string;
let fine: string;
let c: TestCluster;
beforeAll(async () => {
  [expired, notYetValid, soon, fine] = (await Promise.all([ca('old-root', -400, 30), ca('future-root', 10, 365), ca('soon-root', -300, 320), ca('fine-root', -1, 3650)])).map((k) => k.certPem);
  c = await startCluster();
});
afterAll(async () => {
  await c.close();
});

const shortSha = (pem: string) => trustAnchorFacts(pem).anchors[0]!.sha256.slice(0, 16);

/** The texts of the response's `299` Warning headers. */
function warningsOf(headers: Record<string, unknown>): string[] {
  const value = headers['warning'];
  if (value === undefined) return [];
  const texts: string[] = [];
  for (const header of Array.isArray(value) ? value : [value]) {
    for (const m of String(header).matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)) texts.push(m[1]!.replace(/\\(.)/g, '$1'));
  }
  return texts;
}

describe('clusterTrustBundleWarnings', () => {
  it('names each expired, not yet valid or soon expiring anchor by subject and short SHA-256, with its time', () => {
    const now = Date.now();
    const warnings = clusterTrustBundleWarnings(bundle('b', fine + expired + notYetValid + soon) as never, undefined, now);
    const facts = (pem: string) => trustAnchorFacts(pem).anchors[0]!;
    const rfc3339 = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
    expect(warnings).toHaveLength(3);
    expect(warnings).toEqual(
      expect.arrayContaining([
        `spec.trustBundle: trust anchor "CN=old-root" (sha256 ${shortSha(expired)}) expired at ${rfc3339(facts(expired).notAfter)}`,
        `spec.trustBundle: trust anchor "CN=future-root" (sha256 ${shortSha(notYetValid)}) is not valid before ${rfc3339(facts(notYetValid).notBefore)}`,
        `spec.trustBundle: trust anchor "CN=soon-root" (sha256 ${shortSha(soon)}) expires at ${rfc3339(facts(soon).notAfter)} (in 20d)`,
      ]),
    );
    // Kubernetes' wording: lowercase start, no trailing period.
    for (const w of warnings) expect(w).toMatch(/^[a-z].*[^.]$/);
  });

  it('warns within 30 days of notAfter (inclusive) and not a moment earlier', () => {
    const notAfter = trustAnchorFacts(fine).anchors[0]!.notAfter.getTime();
    const obj = bundle('b', fine) as never;
    expect(clusterTrustBundleWarnings(obj, undefined, notAfter - anchorExpiryWarningWindowMs)).toHaveLength(1);
    expect(clusterTrustBundleWarnings(obj, undefined, notAfter - anchorExpiryWarningWindowMs - 1)).toEqual([]);
  });

  it('after validation reads the times of its parse, with the same warnings, and remembers the summary for tables and metrics', () => {
    const now = Date.now();
    const obj = bundle('b', fine + expired + notYetValid + soon) as never;
    const unvalidated = clusterTrustBundleWarnings(obj, undefined, now);
    const validated = bundle('b', fine + expired + notYetValid + soon) as never;
    const cache = new ClusterTrustBundleCache();
    expect(clusterTrustBundleStrategy(cache).validate(validated)).toEqual([]);
    // In the bundle's order here, in canonical (SHA-256) order from the anchor facts.
    expect(clusterTrustBundleWarnings(validated, undefined, now, cache).sort()).toEqual(unvalidated.sort());
    const trustBundleSummary = (pem: string) => cache.summary(pem);
    const earliest = Math.min(...[fine, expired, notYetValid, soon].map((p) => trustAnchorFacts(p).anchors[0]!.notAfter.getTime()));
    expect(trustBundleSummary(fine + expired + notYetValid + soon)).toEqual({ anchors: 4, earliestNotAfter: earliest });
    expect(trustBundleSummary(soon + 'text between\n' + fine)).toEqual({ anchors: 2, earliestNotAfter: trustAnchorFacts(soon).earliestNotAfter!.getTime() });
    expect(trustBundleSummary('')).toEqual({ anchors: 0 });
  });

  it('says nothing about an update that keeps trustBundle, and about an empty or missing one', () => {
    const old = bundle('b', expired) as never;
    expect(clusterTrustBundleWarnings(bundle('b', expired, undefined, { metadata: { labels: { a: 'b' } } }) as never, old)).toEqual([]);
    expect(clusterTrustBundleWarnings(bundle('b', expired + fine) as never, old)).toHaveLength(1);
    expect(clusterTrustBundleWarnings(bundle('b', '') as never)).toEqual([]);
    expect(clusterTrustBundleWarnings({ metadata: { name: 'b' } })).toEqual([]);
  });
});

describe('expiry warnings over HTTP', () => {
  const expiredText = () => expect.stringMatching(/^spec\.trustBundle: trust anchor "CN=old-root" \(sha256 [0-9a-f]{16}\) expired at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

  it('a create stores the object and warns (also with dryRun, which stores nothing)', async () => {
    const dry = await c.req('writer', 'POST', `${ctbPath}?dryRun=All`, { body: bundle('warn-create', fine + expired) });
    expect(dry.status).toBe(201);
    expect(warningsOf(dry.headers)).toEqual([expiredText()]);
    expect((await c.req('reader', 'GET', `${ctbPath}/warn-create`)).status).toBe(404);
    const res = await c.req('writer', 'POST', ctbPath, { body: bundle('warn-create', fine + expired) });
    expect(res.status).toBe(201);
    expect(warningsOf(res.headers)).toEqual([expiredText()]);
    const clean = await c.req('writer', 'POST', ctbPath, { body: bundle('no-warn-create', fine) });
    expect(clean.status).toBe(201);
    expect(clean.headers['warning']).toBeUndefined();
  });

  it('stores a bundle whose corrupt CERTIFICATE block stands before a good CA, as Go\'s pem.Decode skips it, and warns which block', async () => {
    const corrupt = '-----BEGIN CERTIFICATE-----\n!!!! not base64 !!!!\n-----END CERTIFICATE-----\n';
    const res = await c.req('writer', 'POST', ctbPath, { body: bundle('skipped-block', corrupt + fine) });
    expect(res.status).toBe(201);
    expect(warningsOf(res.headers)).toEqual(['spec.trustBundle: skipped a CERTIFICATE block at line 1 that does not parse as PEM: invalid base64 data']);
    const many = await c.req('writer', 'POST', `${ctbPath}?dryRun=All`, { body: bundle('skipped-blocks', corrupt.repeat(40) + fine) });
    expect(many.status).toBe(201);
    const texts = warningsOf(many.headers);
    expect(texts).toHaveLength(6);
    expect(texts.at(-1)).toBe('spec.trustBundle: 35 more blocks that do not parse as PEM skipped');
  });

  it('an update, each patch type and an apply warn when they store a bundle with such anchors; a label change does not', async () => {
    const created = await c.req<{ metadata: { resourceVersion: string } }>('writer', 'POST', ctbPath, { body: bundle('warn-update', fine) });
    expect(created.status).toBe(201);
    const put = await c.req<{ metadata: { resourceVersion: string } }>('writer', 'PUT', `${ctbPath}/warn-update`, {
      body: bundle('warn-update', fine + notYetValid, undefined, { metadata: { resourceVersion: created.json.metadata.resourceVersion } }),
    });
    expect(put.status).toBe(200);
    expect(warningsOf(put.headers)).toEqual([expect.stringContaining('trust anchor "CN=future-root"')]);

    const labels = await c.req('writer', 'PATCH', `${ctbPath}/warn-update`, { body: { metadata: { labels: { a: 'b' } } }, contentType: 'application/merge-patch+json' });
    expect(labels.status).toBe(200);
    expect(labels.headers['warning']).toBeUndefined();

    const merge = await c.req('writer', 'PATCH', `${ctbPath}/warn-update`, { body: { spec: { trustBundle: soon } }, contentType: 'application/merge-patch+json' });
    expect(merge.status).toBe(200);
    expect(warningsOf(merge.headers)).toEqual([expect.stringMatching(/trust anchor "CN=soon-root" .* expires at .* \(in 20d\)$/)]);

    const json = await c.req('writer', 'PATCH', `${ctbPath}/warn-update?dryRun=All`, {
      body: [{ op: 'replace', path: '/spec/trustBundle', value: expired + fine }],
      contentType: 'application/json-patch+json',
    });
    expect(json.status).toBe(200);
    expect(warningsOf(json.headers)).toEqual([expiredText()]);

    const strategic = await c.req('writer', 'PATCH', `${ctbPath}/warn-update`, { body: { spec: { trustBundle: fine + expired } }, contentType: 'application/strategic-merge-patch+json' });
    expect(strategic.status).toBe(200);
    expect(warningsOf(strategic.headers)).toEqual([expiredText()]);

    const apply = await c.req('writer', 'PATCH', `${ctbPath}/warn-apply?fieldManager=tester`, {
      raw: JSON.stringify(bundle('warn-apply', expired + soon + notYetValid)),
      contentType: 'application/apply-patch+yaml',
    });
    expect(apply.status).toBe(201);
    expect(warningsOf(apply.headers)).toHaveLength(3);
    const reapply = await c.req('writer', 'PATCH', `${ctbPath}/warn-apply?fieldManager=tester`, {
      raw: JSON.stringify(bundle('warn-apply', fine + expired)),
      contentType: 'application/apply-patch+yaml',
    });
    expect(reapply.status).toBe(200);
    expect(warningsOf(reapply.headers)).toEqual([expiredText()]);
  });
});

describe('Table', () => {
  const tableAccept = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' };
  type Table = { columnDefinitions: Array<{ name: string; type: string; format: string; priority: number }>; rows: Array<{ cells: unknown[] }> };

  it('adds Anchors and Not-After as wide columns (priority 1) after NAME, SIGNERNAME and AGE', async () => {
    await c.req('writer', 'POST', ctbPath, { body: bundle('table-two', soon + fine) });
    const res = await c.req<Table>('reader', 'GET', `${ctbPath}/table-two`, { headers: tableAccept });
    expect(res.status).toBe(200);
    expect(res.json.columnDefinitions.map((col) => [col.name, col.type, col.priority])).toEqual([
      ['Name', 'string', 0],
      ['SignerName', 'string', 0],
      ['Age', 'string', 0],
      ['Anchors', 'integer', 1],
      ['Not-After', 'string', 1],
    ]);
    const soonNotAfter = trustAnchorFacts(soon).anchors[0]!.notAfter.toISOString().replace(/\.\d{3}Z$/, 'Z');
    expect(res.json.rows[0]!.cells).toEqual(['table-two', '<none>', expect.stringMatching(/^\d+s$/), 2, soonNotAfter]);
    const list = await c.req<Table>('reader', 'GET', `${ctbPath}?labelSelector=absent-label`, { headers: tableAccept });
    expect(list.json.rows).toEqual([]);
  });
});
