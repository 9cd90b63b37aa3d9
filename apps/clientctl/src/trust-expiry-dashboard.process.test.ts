import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { parse as parseYaml } from 'yaml';
import { createCertificateAuthority } from '@plat/x509';
import { bash, startWalkthroughServer, stopWalkthroughServer, waitUntil, walkthroughBlocks, type ApiserverProcess } from '../test/processes.js';

// docs/trust-distribution.md, "Expiry dashboard and alerts", run block by block with bash against
// a started apiserver, with a real Prometheus scraping it and loading the rules; the dashboard's
// queries asked of that Prometheus; the metric names the dashboard and the rules use checked
// against what the apiserver's /metrics serves; the dashboard linted; the rules through promtool.
const docs = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs');
const dashboardFile = path.join(docs, 'grafana/plat-trust-anchors.json');
const rulesFile = path.join(docs, 'prometheus/plat-trust-anchors.rules.yaml');
const rulesTestFile = path.join(docs, 'prometheus/plat-trust-anchors.rules.test.yaml');

interface Target { expr: string; refId: string; datasource?: { type?: string; uid?: string } }
interface Panel { id: number; type: string; title: string; datasource?: { type?: string; uid?: string }; gridPos?: object; targets?: Target[] }
interface Variable { name: string; type: string; query?: unknown; datasource?: { uid?: string } }
interface Dashboard { uid: string; title: string; schemaVersion: number; panels: Panel[]; templating: { list: Variable[] } }

const dashboard = (): Dashboard => JSON.parse(readFileSync(dashboardFile, 'utf8')) as Dashboard;
const ruleExprs = (): string[] =>
  (parseYaml(readFileSync(rulesFile, 'utf8')) as { groups: { rules: { expr: string }[] }[] }).groups.flatMap((g) => g.rules.map((r) => r.expr));
/** The panels' queries as Prometheus gets them: Grafana replaces `$signer` with the "All" value `.*`. */
const panelExprs = () => dashboard().panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr.replaceAll('$signer', '.*') })));

const promqlKeywords = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'inf', 'nan', 'atan2']);

/**
 * The metric names a PromQL expression selects: identifiers that are not functions, aggregations,
 * keywords or label names (inside `{}`, or the lists after by/without/on/ignoring/group_*), with
 * strings, range and subquery brackets, durations and numbers taken out first.
 */
function promqlMetricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`[^`]*`/g, ' ')
    .replace(/#.*$/gm, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\b(\d+(ms|[smhdwy]))+\b/g, ' ')
    .replace(/\b\d+(\.\d+)?(e[+-]?\d+)?\b/gi, ' ');
  const names = new Set<string>();
  for (const m of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*(\s*\()?/g)) {
    if (m[1] || promqlKeywords.has(m[0].toLowerCase())) continue;
    names.add(m[0]);
  }
  return [...names].sort();
}

/** Grafana's `label_values(metric, label)` template query: the metric it names. */
function labelValuesMetric(query: string): string {
  const m = /^label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*,\s*[a-zA-Z_]\w*\s*\)$/.exec(query.trim());
  if (!m) throw new Error(`not a label_values(metric, label) query: ${query}`);
  return m[1]!;
}

function missingTools(tools: string[]): string[] {
  return tools.filter((t) => spawnSync('/bin/sh', ['-c', `command -v ${t}`]).status !== 0);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** The apiserver's /metrics as Prometheus scrapes it, with the kubeconfig's admin client certificate. */
async function scrapeMetrics(kubeconfig: string, url: string): Promise<string> {
  const doc = parseYaml(readFileSync(kubeconfig, 'utf8')) as {
    clusters: { cluster: Record<string, string> }[];
    users: { user: Record<string, string> }[];
  };
  const b64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
  const agent = new Agent({
    connect: { ca: b64(doc.clusters[0]!.cluster['certificate-authority-data']!), cert: b64(doc.users[0]!.user['client-certificate-data']!), key: b64(doc.users[0]!.user['client-key-data']!) },
  });
  try {
    const res = await request(`${url}/metrics`, { dispatcher: agent });
    expect(res.statusCode).toBe(200);
    return await res.body.text();
  } finally {
    await agent.close();
  }
}

/** The names of the samples in a Prometheus text exposition (histograms' _bucket, _sum and _count included). */
function exposedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
    if (m) names.add(m[1]!);
  }
  return names;
}

let dir: string;
let apiserver: ApiserverProcess;
let shimDir: string;

beforeAll(async () => {
  ({ dir, shimDir, apiserver } = await startWalkthroughServer('clientctl-trust-dashboard-'));
}, 120_000);
afterAll(() => stopWalkthroughServer({ dir, apiserver }));

describe('promqlMetricNames', () => {
  it('finds the selected metrics and leaves out functions, keywords, labels, strings and numbers', () => {
    expect(
      promqlMetricNames(`max by (signer_name) (max_over_time(foo_total{a="b", c=~"x|y"}[1h]) > 0)
        unless on (instance, job) bar:rate5m offset 5m and ignoring (le) baz - time() < 7 * 86400 or vector(1e3)`),
    ).toEqual(['bar:rate5m', 'baz', 'foo_total']);
    expect(promqlMetricNames('sort(count(up == bool 1) without (job))')).toEqual(['up']);
  });
});

describe('the Grafana dashboard (docs/grafana/plat-trust-anchors.json)', () => {
  it('is an importable dashboard whose every panel and query uses the datasource variable', () => {
    const d = dashboard();
    expect(d).toMatchObject({ uid: 'plat-trust-anchors', title: expect.any(String), schemaVersion: expect.any(Number) });
    expect(d.schemaVersion).toBeGreaterThanOrEqual(36);
    const variables = new Map(d.templating.list.map((v) => [v.name, v]));
    expect(variables.get('datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
    expect(d.panels.length).toBeGreaterThanOrEqual(6);
    expect(new Set(d.panels.map((p) => p.id)).size).toBe(d.panels.length);
    const uses = new Set<string>();
    for (const p of d.panels) {
      expect({ panel: p.title, datasource: p.datasource }).toEqual({ panel: p.title, datasource: { type: 'prometheus', uid: '${datasource}' } });
      expect(p.gridPos).toEqual({ h: expect.any(Number), w: expect.any(Number), x: expect.any(Number), y: expect.any(Number) });
      expect(p.targets?.length).toBeGreaterThan(0);
      for (const t of p.targets!) {
        expect({ panel: p.title, datasource: t.datasource }).toEqual({ panel: p.title, datasource: { type: 'prometheus', uid: '${datasource}' } });
        for (const m of t.expr.matchAll(/\$(\w+)/g)) uses.add(m[1]!);
      }
    }
    for (const v of d.templating.list.filter((x) => x.type === 'query')) expect(v.datasource?.uid).toBe('${datasource}');
    // Every variable a query uses is defined.
    for (const name of uses) expect(variables.has(name)).toBe(true);
  });
});

describe('the metrics the dashboard and the rules name', () => {
  it('are all exported by a running apiserver that stores bundles', async () => {
    const env = { PATH: `${shimDir}:${process.env.PATH}`, HOME: dir, KUBECONFIG: apiserver.kubeconfig };
    const ca = await createCertificateAuthority({ commonName: 'names-ca' });
    const manifest = JSON.stringify({
      apiVersion: 'certificates.plat.io/v1alpha1',
      kind: 'ClusterTrustBundle',
      metadata: { name: 'example.com:names:roots' },
      spec: { signerName: 'example.com/names', trustBundle: ca.certPem },
    });
    expect((await bash(`clientctl apply -f - <<'EOF'\n${manifest}\nEOF`, dir, env)).code).toBe(0);
    const d = dashboard();
    const referenced = new Set([
      ...ruleExprs().flatMap(promqlMetricNames),
      ...d.panels.flatMap((p) => (p.targets ?? []).flatMap((t) => promqlMetricNames(t.expr))),
      ...d.templating.list.filter((v) => v.type === 'query').map((v) => labelValuesMetric(typeof v.query === 'string' ? v.query : (v.query as { query: string }).query)),
    ]);
    expect(referenced).toContain('plat_clustertrustbundle_earliest_not_after_timestamp_seconds');
    let exposed = new Set<string>();
    await waitUntil('the trust-anchor gauges in /metrics', async () => {
      exposed = exposedNames(await scrapeMetrics(apiserver.kubeconfig, apiserver.url));
      return exposed.has('plat_clustertrustbundle_anchors');
    });
    expect([...referenced].filter((n) => !exposed.has(n))).toEqual([]);
    expect((await bash('clientctl delete clustertrustbundle example.com:names:roots', dir, env)).code).toBe(0);
  }, 60_000);
});

describe('the alert rules (docs/prometheus/plat-trust-anchors.rules.yaml)', () => {
  it('pass promtool check rules and their unit tests', () => {
    const missing = missingTools(['promtool']);
    if (missing.length) {
      console.log(`skipped: ${missing.join(', ')} not installed (Debian package prometheus; tools/install-system-packages.sh)`);
      return;
    }
    const check = spawnSync('promtool', ['check', 'rules', rulesFile], { encoding: 'utf8' });
    expect(check.stdout).toContain('SUCCESS: 5 rules found');
    expect(check.status).toBe(0);
    const unit = spawnSync('promtool', ['test', 'rules', path.basename(rulesTestFile)], { cwd: path.dirname(rulesTestFile), encoding: 'utf8' });
    expect(`${unit.stdout}${unit.stderr}`).toContain('SUCCESS');
    expect(unit.status).toBe(0);
  });
});

describe('Expiry dashboard and alerts (docs/trust-distribution.md)', () => {
  it('runs as written: the timeline, promtool, Prometheus alerting on the apiserver, the dashboard queries', async () => {
    const missing = missingTools(['openssl', 'curl', 'promtool', 'prometheus']);
    if (missing.length) {
      console.log(`skipped: ${missing.join(', ')} not installed (tools/install-system-packages.sh installs them)`);
      return;
    }
    const blocks = walkthroughBlocks('trust-distribution.md', '## Expiry dashboard and alerts');
    expect(blocks.map((b) => b.mark)).toEqual(['environment', 'run', 'run', 'run', 'run', 'background', 'run', 'run']);
    const work = mkdtempSync(path.join(dir, 'walkthrough-'));
    const prometheusAddress = `127.0.0.1:${await freePort()}`;
    const env = { PATH: `${shimDir}:${process.env.PATH}`, HOME: dir, KUBECONFIG: apiserver.kubeconfig, PLAT_DOCS: docs, PROMETHEUS: prometheusAddress };
    const background: { child: ChildProcess; output: () => string; exited: Promise<number | null> }[] = [];
    const outputs: string[] = [];
    try {
      for (const block of blocks) {
        if (block.mark === 'environment') {
          // The walk-through's own values: this test's apiserver, docs folder and a free port.
          for (const name of ['KUBECONFIG', 'PLAT_DOCS', 'PROMETHEUS']) expect(block.code).toContain(`export ${name}=`);
          continue;
        }
        if (block.mark === 'background') {
          const child = spawn('/bin/bash', ['-c', `exec ${block.code.trim()}`], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
          let out = '';
          child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
          child.stderr!.setEncoding('utf8').on('data', (c: string) => (out += c));
          background.push({ child, output: () => out, exited: new Promise((r) => child.once('exit', (code) => r(code))) });
          continue;
        }
        const r = await bash(block.code, work, env);
        if (r.code !== 0) throw new Error(`block failed (${r.code}):\n${block.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}\nbackground:\n${background.map((p) => p.output()).join('')}`);
        outputs.push(r.stdout);
      }
      const [, timeline, rules, config, alerts, query] = outputs;
      // The timeline: the 5-day anchor first and highlighted with --fail-within, the command exiting 1.
      const rows = timeline!.split('\n').filter((l) => /^edge-/.test(l));
      expect(rows).toHaveLength(4);
      expect(rows[0]).toMatch(/^edge-5d [0-9a-f]{8} +=+ +\d{4}-\d\d-\d\d$/);
      expect(rows[1]).toMatch(/^edge-1y [0-9a-f]{8} +=+ \d{4}-\d\d-\d\d$/);
      expect(rows[2]).toMatch(/^edge-5d [0-9a-f]{8} +!+ +\d{4}-\d\d-\d\d$/);
      for (const line of timeline!.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(90);
      expect(timeline).toMatch(/\nexit code 1\n$/);
      expect(rules).toContain('SUCCESS');
      expect(config).toContain('is valid prometheus config file syntax');
      expect(alerts!.trimEnd().split('\n')).toEqual([
        '"alertname":"PlatTrustAnchorExpiresWithin30Days","severity":"warning","signer_name":"example.com/mesh"',
        '"alertname":"PlatTrustAnchorExpiresWithin7Days","severity":"critical","signer_name":"example.com/edge"',
      ]);
      expect(query!.trimEnd().split('\n')).toEqual([
        expect.stringMatching(/^"signer_name":"example\.com\/edge"\},"value":\[[\d.]+,"4$/),
        expect.stringMatching(/^"signer_name":"example\.com\/mesh"\},"value":\[[\d.]+,"19$/),
      ]);

      // Prometheus loaded all the rules, and every panel's query evaluates there with data.
      const api = async (p: string) => (await (await fetch(`http://${prometheusAddress}${p}`)).json()) as { status: string; data: unknown };
      const loaded = (await api('/api/v1/rules')).data as { groups: { name: string; rules: { name: string; health: string }[] }[] };
      expect(loaded.groups.map((g) => [g.name, g.rules.length, g.rules.every((r) => r.health === 'ok')])).toEqual([['plat-trust-anchors', 5, true]]);
      for (const { panel, expr } of panelExprs()) {
        const answer = await api(`/api/v1/query?query=${encodeURIComponent(expr)}`);
        expect({ panel, status: answer.status }).toEqual({ panel, status: 'success' });
        expect({ panel, results: (answer.data as { result: unknown[] }).result.length > 0 }).toEqual({ panel, results: true });
      }
      const signerVariable = dashboard().templating.list.find((v) => v.name === 'signer')!;
      const signers = await api(`/api/v1/label/signer_name/values?match[]=${labelValuesMetric((signerVariable.query as { query: string }).query)}`);
      expect(signers.data).toEqual(expect.arrayContaining(['example.com/edge', 'example.com/mesh']));
    } finally {
      for (const p of background) p.child.kill('SIGTERM');
      for (const p of background) expect(await p.exited).toBe(0);
    }
  }, 120_000);
});
