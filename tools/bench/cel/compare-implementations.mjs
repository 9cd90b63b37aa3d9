#!/usr/bin/env node
// Evidence for the choice of CEL implementation (packages/cel/README.md): feature probes and
// compile/evaluate speed of @marcbachmann/cel-js (installed here) against @bufbuild/cel, which
// plat does not depend on. Install it outside the workspace first:
//
//   npm install --prefix /tmp/celcmp @bufbuild/cel@0.6.1
//   node tools/bench/cel/compare-implementations.mjs /tmp/celcmp
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const bufDir = process.argv[2];
if (!bufDir) {
  console.error('usage: node tools/bench/cel/compare-implementations.mjs <dir with node_modules/@bufbuild/cel>');
  process.exit(2);
}
const { Environment } = await import(new URL('../../../node_modules/@marcbachmann/cel-js/lib/index.js', import.meta.url).href);
const bufbuild = await import(pathToFileURL(join(bufDir, 'node_modules/@bufbuild/cel/dist/esm/index.js')).href);
const { strings } = await import(pathToFileURL(join(bufDir, 'node_modules/@bufbuild/cel/dist/esm/ext/index.js')).href);
const { parse: bparse, plan, celEnv, run, mapType, CelScalar, isCelError } = bufbuild;
const claims = { sub: 'alice', email: 'Alice@Example.com', email_verified: true, groups: ['dev','ops','admin'], iss: 'https://issuer.example', aud: ['plat'], exp: 1900000000 }
const mapping = 'claims.sub + ":" + claims.email.lowerAscii()'
const groups = 'claims.groups.filter(g, g != "admin").map(g, "oidc:" + g)'
const rule = 'claims.?email_verified.orValue(false) == true && claims.aud.exists(a, a == "plat")'
const probes = { optional: 'claims.?email_verified.orValue(true)', optionalOf: 'optional.of(1).hasValue()', has: 'has(claims.email)', macros: 'claims.groups.all(g, size(g) > 0) && claims.groups.exists_one(g, g == "dev")',
  split: '"a,b".split(",").size() == 2', lowerAscii: '"AB".lowerAscii() == "ab"', join: '["a","b"].join("-") == "a-b"', replace: '"aXb".replace("X","-") == "a-b"', indexOf: '"abc".indexOf("c") == 2', charAt: '"abc".charAt(1) == "b"', format: '"%s".format(["x"]) == "x"', quote: 'strings.quote("a") == "\\"a\\""', trim: '" a ".trim() == "a"' }
const m = new Environment({ enableOptionalTypes: true }).registerVariable('claims', 'map<string, dyn>')
const benv = celEnv({ funcs: strings, variables: { claims: mapType(CelScalar.STRING, CelScalar.DYN) } })
function feat(name, fn) { try { const r = fn(); return r === true || (r && r.valid) ? 'yes' : 'no (' + String(r?.message ?? r?.error?.message ?? r).split('\n')[0].slice(0,60) + ')' } catch (e) { return 'no (' + e.message.split('\n')[0].slice(0,60) + ')' } }
for (const [k, e] of Object.entries(probes)) {
  console.log(k.padEnd(12), '| marc:', feat(k, () => m.evaluate(e, { claims })), '| buf:', feat(k, () => { const r = run(e, { claims: new Map(Object.entries(claims)) }, { funcs: strings }); return isCelError(r) ? r : r }))
}
console.log('typecheck  | marc:', m.check('claims.sub + 1').valid === false ? 'rejects claims.sub+1? no, dyn' : '', m.check('1 + "a"').valid ? 'no' : 'yes, rejects 1+"a"', m.check('undeclared').valid ? '' : 'rejects undeclared', '| buf: no public checker (check.js not exported)')
function bench(label, n, fn) { for (let i = 0; i < Math.min(n, 2000); i++) fn(); const t = process.hrtime.bigint(); for (let i = 0; i < n; i++) fn(); const ns = Number(process.hrtime.bigint() - t); const ops = n / (ns / 1e9); console.log(label.padEnd(40), Math.round(ops).toLocaleString('en'), 'ops/s'); return ops }
const bclaims = new Map(Object.entries(claims))
for (const [name, e] of [['mapping', mapping], ['groups', groups], ['rule', rule.replace('claims.?email_verified.orValue(false) == true', 'claims.email_verified == true')]]) {
  bench(`marc compile ${name}`, 20000, () => { const p = m.parse(e); p.check() })
  bench(`buf  compile ${name}`, 20000, () => plan(benv, bparse(e)))
  const pm = m.parse(e); pm.check(); const pb = plan(benv, bparse(e))
  console.log(' results', JSON.stringify(pm({ claims })), JSON.stringify(pb({ claims: bclaims })?.toString?.() ?? pb({ claims: bclaims })))
  bench(`marc eval ${name}`, 300000, () => pm({ claims }))
  bench(`buf  eval ${name}`, 100000, () => pb({ claims: bclaims }))
}
