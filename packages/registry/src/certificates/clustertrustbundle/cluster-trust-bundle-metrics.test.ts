import { createCertificate, trustAnchorFacts } from '@plat/x509';
import { bundle, ctbPath, startCluster, type TestCluster } from '../../../test/cluster.js';
import { ClusterTrustBundleSignerStats, otherSignersLabel, startClusterTrustBundleMetrics, type ClusterTrustBundleMetrics } from './cluster-trust-bundle-metrics.js';

let a: string;
let b: string;
let short: string;
const notAfterSeconds = (pem: string) => Math.floor(trustAnchorFacts(pem).earliestNotAfter!.getTime() / 1000);

beforeAll(async () => {
  const ca = (commonName: string, days: number) => createCertificate({ commonName, basicConstraints: 'ca', keyUsage: ['keyCertSign'], validityDays: days });
  [a, b, short] = (await Promise.all([ca('metrics-a', 3650), ca('metrics-b', 365), ca('metrics-short', 10)])).map((k) => k.certPem);
});

const obj = (name: string, pem: string, signerName?: string, labels?: Record<string, string>) =>
  bundle(name, pem, signerName, labels ? { metadata: { labels } } : {}) as never;

describe('ClusterTrustBundleSignerStats', () => {
  it('sums anchors and bytes and keeps the earliest notAfter per signer name, "" for bundles without one', () => {
    const stats = new ClusterTrustBundleSignerStats();
    stats.replace([obj('x', a + b), obj('example.com:s:one', short, 'example.com/s'), obj('example.com:s:two', a, 'example.com/s')]);
    const bySigner = Object.fromEntries(stats.series().map((s) => [s.signerName, s]));
    expect(bySigner['']).toEqual({ signerName: '', anchors: 2, bytes: Buffer.byteLength(a + b), earliestNotAfter: notAfterSeconds(b) });
    expect(bySigner['example.com/s']).toEqual({ signerName: 'example.com/s', anchors: 2, bytes: Buffer.byteLength(short + a), earliestNotAfter: notAfterSeconds(short) });

    // The bundle holding the earliest anchor goes: the next earliest takes its place.
    stats.delete(obj('example.com:s:one', short, 'example.com/s'));
    expect(stats.series().find((s) => s.signerName === 'example.com/s')).toMatchObject({ anchors: 1, earliestNotAfter: notAfterSeconds(a) });
    // An update replaces the bundle's share; a label change (same trustBundle as before) keeps it.
    stats.upsert(obj('x', a), obj('x', a + b));
    stats.upsert(obj('x', a, undefined, { l: 'v' }), obj('x', a));
    expect(stats.series().find((s) => s.signerName === '')).toEqual({ signerName: '', anchors: 1, bytes: Buffer.byteLength(a), earliestNotAfter: notAfterSeconds(a) });
    // The last bundle of a signer goes: so does its series.
    stats.delete(obj('example.com:s:two', a, 'example.com/s'));
    expect(stats.series().map((s) => s.signerName)).toEqual(['']);
    stats.replace([]);
    expect(stats.series()).toEqual([]);
  });

  it('gives at most maxSignerSeries signers a series and pools the others under (other) until a slot frees up', () => {
    const stats = new ClusterTrustBundleSignerStats(2);
    for (const s of ['one', 'two', 'three', 'four']) stats.upsert(obj(`example.com:${s}:b`, s === 'four' ? short : a, `example.com/${s}`));
    expect(stats.series().map((s) => [s.signerName, s.anchors])).toEqual([
      [otherSignersLabel, 2],
      ['example.com/one', 1],
      ['example.com/two', 1],
    ]);
    expect(stats.series().find((s) => s.signerName === otherSignersLabel)!.earliestNotAfter).toBe(notAfterSeconds(short));
    stats.delete(obj('example.com:one:b', a, 'example.com/one'));
    stats.upsert(obj('example.com:five:b', a, 'example.com/five'));
    expect(stats.series().map((s) => s.signerName)).toEqual([otherSignersLabel, 'example.com/five', 'example.com/two']);
    stats.delete(obj('example.com:three:b', a, 'example.com/three'));
    stats.delete(obj('example.com:four:b', short, 'example.com/four'));
    expect(stats.series().map((s) => s.signerName)).toEqual(['example.com/five', 'example.com/two']);
  });
});

describe('startClusterTrustBundleMetrics on a started server', () => {
  let c: TestCluster;
  let feed: ClusterTrustBundleMetrics | undefined;
  beforeAll(async () => {
    c = await startCluster();
  });
  afterAll(async () => {
    await feed?.stop();
    await c.close();
  });

  const scrape = async () => {
    const res = await c.req('admin', 'GET', '/metrics');
    expect(res.status).toBe(200);
    return res.text.split('\n').filter((l) => l.startsWith('plat_clustertrustbundle_'));
  };

  it('counts what was stored before it started, then follows creates, updates and deletes into /metrics', async () => {
    expect((await c.req('admin', 'POST', ctbPath, { body: bundle('before-start', a) })).status).toBe(201);
    feed = startClusterTrustBundleMetrics({ storage: c.storage, registry: c.server.metrics });
    await feed.synced;
    expect(await scrape()).toEqual([
      'plat_clustertrustbundle_anchors{signer_name=""} 1',
      `plat_clustertrustbundle_bytes{signer_name=""} ${Buffer.byteLength(a)}`,
      `plat_clustertrustbundle_earliest_not_after_timestamp_seconds{signer_name=""} ${notAfterSeconds(a)}`,
    ]);

    expect((await c.req('admin', 'POST', ctbPath, { body: bundle('example.com:mesh:one', short + b, 'example.com/mesh') })).status).toBe(201);
    expect((await c.req('admin', 'PATCH', `${ctbPath}/before-start`, { body: { spec: { trustBundle: a + b } }, contentType: 'application/merge-patch+json' })).status).toBe(200);
    // Series sorted by signer name.
    const expected = [
      'plat_clustertrustbundle_anchors{signer_name=""} 2',
      'plat_clustertrustbundle_anchors{signer_name="example.com/mesh"} 2',
      `plat_clustertrustbundle_bytes{signer_name=""} ${Buffer.byteLength(a + b)}`,
      `plat_clustertrustbundle_bytes{signer_name="example.com/mesh"} ${Buffer.byteLength(short + b)}`,
      `plat_clustertrustbundle_earliest_not_after_timestamp_seconds{signer_name=""} ${notAfterSeconds(b)}`,
      `plat_clustertrustbundle_earliest_not_after_timestamp_seconds{signer_name="example.com/mesh"} ${notAfterSeconds(short)}`,
    ];
    await waitFor(async () => expect(await scrape()).toEqual(expected));

    expect((await c.req('admin', 'DELETE', `${ctbPath}/example.com:mesh:one`)).status).toBe(200);
    await waitFor(async () => expect((await scrape()).filter((l) => l.includes('example.com/mesh'))).toEqual([]));

    // Stopped, the gauges leave the registry (a new feed may register them again).
    await feed.stop();
    feed = undefined;
    expect(await scrape()).toEqual([]);
  });
});

/** Retries `check` until it passes (watch events arrive asynchronously), up to 15 s. */
async function waitFor(check: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
