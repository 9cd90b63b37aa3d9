#!/usr/bin/env node
// Micro-benchmark of @plat/auth's RBAC authorizer: decisions per second against an AlwaysAllow
// authorizer measured in the same process, with 1,000 ClusterRoles and 1,000 ClusterRoleBindings.
//
//   node tools/bench/rbac/bench.mjs [--rounds 7] [--ms 400] [--json]
//
// Bundles the authorizer's sources with esbuild (no build step). The policy: 1,000 ClusterRoles of
// two rules each (a resource rule in the role's own API group, a non-resource rule; role-973 also
// reads ClusterTrustBundles), and 1,000 ClusterRoleBindings, binding-i binding role-i to `user-i`
// and to group `team-<i mod 50>`. The request: GET of one ClusterTrustBundle by `user-123`
// (groups `team-23`, `system:authenticated`), as the server's authorization filter asks it. The
// index finds that user's 20 bindings (its own and its team's); the GET is allowed by the last of
// them in name order, so every one is tried. Variants, each `await authorizer.authorize(attrs)` in
// a loop, in rotated order every round:
//   (a) always-allow   the baseline;
//   (b) rbac 1000      the GET with 1,000 roles and 1,000 bindings in the source;
//   (c) rbac 20        the same GET with only the user's 20 roles and bindings in the source: what
//                      (b) costs when the other 980 bindings cost nothing;
//   (d) deny 1000      a DELETE no rule covers, with 1,000/1,000 (every candidate tried, NoOpinion);
//   (e) scan 1000      (b) decided by a plain scan of every binding, as Kubernetes' authorizer does
//                      (for scale: what the index saves);
//   (f) rbac cached    (b) asked for one bundle again and again: the decision cache's hit.
// (a) to (e) rotate over 8,192 bundle names, twice the authorizer's decision cache, so that each
// of their decisions is made anew.
// Prints decisions/s per variant (median and range over the rounds), each round's ratio to (a),
// and the cost of one decision in microseconds. Target (issue 20): (b) about (c), and small next
// to the cost of a GET request (the end-to-end ratio is measured by the server benchmark).
import { importSources } from '../lib/import-sources.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const rounds = Math.max(5, arg('rounds', 7));
const sliceMs = arg('ms', 400);
const asJson = process.argv.includes('--json');

const auth = await importSources(
  [
    "export { RbacAuthorizer } from './packages/auth/src/rbac/rbac-authorizer.ts';",
    "export { RbacPolicyStore } from './packages/auth/src/rbac/rule-source.ts';",
    "export { ruleAllows } from './packages/auth/src/rbac/rule-matching.ts';",
    "export { createAlwaysAllowAuthorizer } from './packages/auth/src/mode-authorizers.ts';",
  ].join('\n'),
);

const k8s = 'rbac.authorization.k8s.io';
function policy(n) {
  const clusterRoles = [];
  const clusterRoleBindings = [];
  for (let i = 0; i < n; i++) {
    const rules = [
      { verbs: ['get', 'list', 'watch', 'update'], apiGroups: [`group-${i}.example.io`], resources: ['widgets', 'widgets/status'] },
      { verbs: ['get'], nonResourceURLs: [`/custom/${i}/*`] },
    ];
    // Only role-973, the last of user-123's bindings in name order, grants the GET.
    if (i === 973) rules.push({ verbs: ['get', 'list', 'watch'], apiGroups: ['certificates.plat.io'], resources: ['clustertrustbundles'] });
    clusterRoles.push({ metadata: { name: `role-${i}` }, rules });
    clusterRoleBindings.push({
      metadata: { name: `binding-${i}` },
      roleRef: { apiGroup: k8s, kind: 'ClusterRole', name: `role-${i}` },
      subjects: [
        { kind: 'User', apiGroup: k8s, name: `user-${i}` },
        { kind: 'Group', apiGroup: k8s, name: `team-${i % 50}` },
      ],
    });
  }
  return new auth.RbacPolicyStore({ clusterRoles, clusterRoleBindings });
}

const attrs = (verb, resource) => ({
  user: { username: 'user-123', groups: ['team-23', 'system:authenticated'] },
  verb,
  resourceRequest: true,
  apiGroup: 'certificates.plat.io',
  apiVersion: 'v1alpha1',
  resource,
  subresource: '',
  namespace: '',
  name: 'example.com:ca:one',
  path: '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/example.com:ca:one',
});
// The authorizer keeps its decisions per request (decisionCacheSize of them): requests for 8,192
// different bundle names, taken in turn, make every decision a new one; `rbac cached` asks one.
const distinct = (verb) => Array.from({ length: 8192 }, (_, i) => ({ ...attrs(verb, 'clustertrustbundles'), name: `example.com:ca:${i}` }));
const getBundle = distinct('get');
const deleteBundle = distinct('delete');

const big = policy(1000);
// The user's own 20 roles and bindings alone.
const mine = (i) => i % 50 === 23;
const small = new auth.RbacPolicyStore({
  clusterRoles: [...big.listClusterRoles()].filter((r) => mine(Number(r.metadata.name.slice(5)))),
  clusterRoleBindings: [...big.listClusterRoleBindings()].filter((b) => mine(Number(b.metadata.name.slice(8)))),
});
if ([...small.listClusterRoleBindings()].length !== 20) throw new Error('expected 20 bindings for user-123');

/** Kubernetes' authorizer without an index: every binding, every subject, then the role's rules. */
function scanAuthorizer(store) {
  const roles = new Map([...store.listClusterRoles()].map((r) => [r.metadata.name, r]));
  const bindings = [...store.listClusterRoleBindings()];
  return {
    async authorize(a) {
      for (const b of bindings) {
        const applies = b.subjects.some((s) => (s.kind === 'User' ? s.name === a.user.username : s.kind === 'Group' && a.user.groups.includes(s.name)));
        if (!applies) continue;
        for (const rule of roles.get(b.roleRef.name)?.rules ?? []) if (auth.ruleAllows(a, rule)) return { decision: 'Allow', reason: `RBAC: allowed by ${b.metadata.name}` };
      }
      return { decision: 'NoOpinion', reason: '' };
    },
  };
}

const variants = {
  'always-allow': { authorizer: auth.createAlwaysAllowAuthorizer(), attrs: getBundle, expect: 'Allow' },
  'rbac 1000': { authorizer: new auth.RbacAuthorizer(big), attrs: getBundle, expect: 'Allow' },
  'rbac 20': { authorizer: new auth.RbacAuthorizer(small), attrs: getBundle, expect: 'Allow' },
  'deny 1000': { authorizer: new auth.RbacAuthorizer(big), attrs: deleteBundle, expect: 'NoOpinion' },
  'scan 1000': { authorizer: scanAuthorizer(big), attrs: getBundle, expect: 'Allow' },
  'rbac cached': { authorizer: new auth.RbacAuthorizer(big), attrs: getBundle.slice(0, 1), expect: 'Allow' },
};

for (const [name, v] of Object.entries(variants)) {
  const result = await v.authorizer.authorize(v.attrs[0]);
  if (result.decision !== v.expect) throw new Error(`${name}: expected ${v.expect}, got ${JSON.stringify(result)}`);
}

/** Decisions per second for about sliceMs. */
async function slice({ authorizer, attrs: list }) {
  const batch = 2048;
  let n = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(sliceMs) * 1_000_000n;
  let now = start;
  while (now < deadline) {
    for (let i = 0; i < batch; i++) await authorizer.authorize(list[(n + i) % list.length]);
    n += batch;
    now = process.hrtime.bigint();
  }
  return n / (Number(now - start) / 1e9);
}

const names = Object.keys(variants);
for (const name of names) await slice(variants[name]); // warm-up
const rates = Object.fromEntries(names.map((n) => [n, []]));
const ratios = Object.fromEntries(names.map((n) => [n, []]));
const indexRatios = [];
for (let r = 0; r < rounds; r++) {
  const order = names.map((_, i) => names[(i + r) % names.length]);
  const round = {};
  for (const name of order) round[name] = await slice(variants[name]);
  for (const name of names) {
    rates[name].push(round[name]);
    ratios[name].push(round[name] / round['always-allow']);
  }
  indexRatios.push(round['rbac 1000'] / round['rbac 20']);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const results = names.map((name) => ({
  variant: name,
  decisionsPerSecond: Math.round(median(rates[name])),
  range: [Math.round(Math.min(...rates[name])), Math.round(Math.max(...rates[name]))],
  microsecondsPerDecision: Number((1e6 / median(rates[name])).toFixed(3)),
  ratioToAlwaysAllow: Number(median(ratios[name]).toFixed(3)),
  ratioRange: [Number(Math.min(...ratios[name]).toFixed(3)), Number(Math.max(...ratios[name]).toFixed(3))],
}));

const index = { ratio: Number(median(indexRatios).toFixed(3)), range: [Number(Math.min(...indexRatios).toFixed(3)), Number(Math.max(...indexRatios).toFixed(3))] };

if (asJson) {
  console.log(JSON.stringify({ node: process.version, rounds, sliceMs, results, rbac1000PerRbac20: index }, null, 2));
} else {
  console.log(`RBAC authorizer, ${rounds} rounds of ${sliceMs} ms per variant (node ${process.version})`);
  console.log('variant        decisions/s (median, range)           µs/decision   ÷ always-allow (median, range)');
  for (const r of results) {
    console.log(
      `${r.variant.padEnd(14)} ${String(r.decisionsPerSecond).padStart(10)} (${r.range[0]}–${r.range[1]})`.padEnd(52) +
        `${r.microsecondsPerDecision.toFixed(3).padStart(8)}      ${r.ratioToAlwaysAllow.toFixed(3)} (${r.ratioRange[0]}–${r.ratioRange[1]})`,
    );
  }
  console.log(`rbac 1000 ÷ rbac 20 (same user, same 20 candidate bindings): ${index.ratio} (${index.range[0]}–${index.range[1]})`);
}
