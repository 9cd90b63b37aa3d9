#!/usr/bin/env node
// Benchmark of @plat/cel: compile and evaluate a typical claim mapping.
//
//   node tools/bench/cel/bench.mjs [--seconds 1]
//
// Imports packages/cel from its sources (tools/bench/lib/import-sources.mjs) so it measures them as
// they are, then prints compiles/s and evals/s with two baselines measured in the same process:
// cel-js used directly (no step meter, no claim conversion) and the same mapping written in
// plain JavaScript. Figures go to docs/performance.md (section "cel").
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { importSources } from '../lib/import-sources.mjs';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const secondsArg = process.argv.indexOf('--seconds');
const seconds = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 1;

const cel = await importSources("export * from '@plat/cel';");
const { Environment } = await import(pathToFileURL(join(root, 'node_modules/@marcbachmann/cel-js/lib/index.js')).href);

const claims = {
  iss: 'https://issuer.example.com',
  sub: '2c4a8f0e-51f6-4b6a-9a2b-3f1d6c0b7e21',
  aud: ['plat'],
  exp: 1900000000,
  iat: 1899996400,
  email: 'Alice.Smith@Example.com',
  email_verified: true,
  groups: ['dev', 'ops', 'admin', 'oncall'],
  tenant: 'acme',
};
const expressions = {
  username: '"oidc:" + claims.email.lowerAscii()',
  groups: 'claims.groups.filter(g, g != "admin").map(g, "oidc:" + g)',
  extra: 'claims.?tenant.orValue("")',
  rule: 'claims.?email_verified.orValue(false) == true && claims.aud.exists(a, a == "plat")',
};

function measure(label, fn) {
  // Warm up, then run in batches until the time is up.
  for (let i = 0; i < 5_000; i++) fn();
  let n = 0;
  const start = process.hrtime.bigint();
  const limit = BigInt(Math.round(seconds * 1e9));
  let elapsed = 0n;
  while (elapsed < limit) {
    for (let i = 0; i < 1_000; i++) fn();
    n += 1_000;
    elapsed = process.hrtime.bigint() - start;
  }
  const perSecond = n / (Number(elapsed) / 1e9);
  return { label, perSecond };
}

const results = [];
// Compile: parse + type check + result-type check, for the four expressions of one authenticator.
const compileAll = () => {
  cel.compile('claims', expressions.username, ['dyn']);
  cel.compile('claims', expressions.groups, ['dyn']);
  cel.compile('claims', expressions.extra, ['dyn']);
  cel.compile('claims', expressions.rule, ['bool']);
};
const compiled = measure('compile (4 expressions of one authenticator)', compileAll);
results.push({ ...compiled, perSecond: compiled.perSecond, unit: 'authenticators/s' });

const programs = Object.fromEntries(
  Object.entries(expressions).map(([k, e]) => {
    const r = cel.compile('claims', e, [k === 'rule' ? 'bool' : 'dyn']);
    if (!r.ok) throw new Error(r.issue.detail);
    return [k, r.program];
  }),
);
const activation = { claims };
const check = programs.username.evaluate(activation);
if (check !== 'oidc:alice.smith@example.com') throw new Error(`unexpected result ${check}`);

const rawEnv = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false }).registerVariable('claims', 'map<string, dyn>');
const raw = Object.fromEntries(Object.entries(expressions).map(([k, e]) => { const p = rawEnv.parse(e); p.check(); return [k, p]; }));
const plain = {
  username: (c) => `oidc:${c.email.toLowerCase()}`,
  groups: (c) => c.groups.filter((g) => g !== 'admin').map((g) => `oidc:${g}`),
  extra: (c) => c.tenant ?? '',
  rule: (c) => (c.email_verified ?? false) === true && c.aud.some((a) => a === 'plat'),
};

const rows = [];
for (const name of Object.keys(expressions)) {
  const ours = measure(`eval ${name} (@plat/cel)`, () => programs[name].evaluate(activation));
  const direct = measure(`eval ${name} (cel-js direct)`, () => raw[name](activation));
  const js = measure(`eval ${name} (plain JS)`, () => plain[name](claims));
  rows.push({ name, ours: ours.perSecond, direct: direct.perSecond, js: js.perSecond });
}
const full = measure('eval full mapping: username+groups+extra+rule', () => {
  programs.rule.evaluate(activation);
  programs.username.evaluate(activation);
  programs.groups.evaluate(activation);
  programs.extra.evaluate(activation);
});

const fmt = (n) => Math.round(n).toLocaleString('en-US');
console.log(`node ${process.version}, ${seconds}s per measurement`);
console.log(`compile: ${fmt(compiled.perSecond)} authenticators/s (${fmt(compiled.perSecond * 4)} expressions/s)`);
console.log('');
console.log('| expression | @plat/cel evals/s | cel-js direct evals/s | plain JS ops/s | @plat/cel ÷ cel-js | @plat/cel ÷ plain JS |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(`| ${r.name} | ${fmt(r.ours)} | ${fmt(r.direct)} | ${fmt(r.js)} | ${(r.ours / r.direct).toFixed(2)} | ${(r.ours / r.js).toFixed(3)} |`);
}
console.log('');
console.log(`full claim mapping (4 programs): ${fmt(full.perSecond)} tokens/s`);
