#!/usr/bin/env node
// Each package README shows example programs that are files under packages/<name>/examples/
// (type-checked with the package, run by tools/consumer-check against the packed tarballs).
// In the README an example is the line `<!-- example: examples/<file>.ts -->` followed by a
// ```ts block holding the file's text. This script checks that every README has an install line
// naming each package its examples import, at least one example, a "Pairs with" and an "API"
// section, and that each example block equals its file.
//   node tools/readme-examples/readme-examples.mjs          # report; exit 1 on a problem
//   node tools/readme-examples/readme-examples.mjs --write  # copy the example files into the READMEs
import fs from 'node:fs';
import path from 'node:path';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
const markerPattern = /^<!-- example: (examples\/[\w.-]+\.ts) -->\n```ts\n([\s\S]*?)^```$/gm;
const importPattern = /(?:^|[\s;])(?:import|export)\s(?:type\s)?(?:[^'"]*?\sfrom\s)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** The packages (directories under packages/) with their README and example files. */
export function packageReadmes() {
  return fs
    .readdirSync(path.join(root, 'packages'))
    .filter((dir) => fs.existsSync(path.join(root, 'packages', dir, 'package.json')))
    .map((dir) => {
      const pkgDir = path.join(root, 'packages', dir);
      const name = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).name;
      const examplesDir = path.join(pkgDir, 'examples');
      const examples = fs.existsSync(examplesDir)
        ? fs.readdirSync(examplesDir).filter((f) => f.endsWith('.ts')).sort().map((f) => `examples/${f}`)
        : [];
      return { dir: pkgDir, name, readme: path.join(pkgDir, 'README.md'), examples };
    });
}

/** The packages a program imports (bare specifiers, without node built-ins), by package name. */
export function importedPackages(text) {
  const names = new Set();
  for (const m of text.matchAll(importPattern)) {
    const spec = m[1] ?? m[2];
    if (spec.startsWith('.') || spec.startsWith('/') || builtins.has(spec)) continue;
    const parts = spec.split('/');
    names.add(spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
  }
  return [...names].sort();
}

function installLine(readme) {
  const m = /^## Install\n+```sh\n(npm install [^\n]+)\n```/m.exec(readme);
  return m ? m[1].split(/\s+/).slice(2) : undefined;
}

/** Problems of one package's README, as readable lines. */
export function readmeProblems({ dir, name, readme, examples }) {
  const problems = [];
  const rel = path.relative(root, readme);
  if (!fs.existsSync(readme)) return [`${rel}: missing`];
  const text = fs.readFileSync(readme, 'utf8');
  const shown = [...text.matchAll(markerPattern)].map((m) => ({ file: m[1], code: m[2] }));
  if (!examples.length) problems.push(`${rel}: no example under ${path.relative(root, dir)}/examples/`);
  if (!shown.length) problems.push(`${rel}: shows no example (<!-- example: examples/<file>.ts --> and a ts block)`);
  for (const { file, code } of shown) {
    const full = path.join(dir, file);
    if (!fs.existsSync(full)) problems.push(`${rel}: shows ${file}, which does not exist`);
    else if (fs.readFileSync(full, 'utf8') !== code) problems.push(`${rel}: the block of ${file} differs from the file (run with --write)`);
  }
  for (const file of examples) {
    if (!shown.some((s) => s.file === file)) problems.push(`${rel}: does not show ${file}`);
  }
  const install = installLine(text);
  if (!install) problems.push(`${rel}: no "## Install" section with an \`npm install ${name}\` line`);
  else {
    const needed = new Set([name]);
    for (const file of examples) {
      const full = path.join(dir, file);
      if (fs.existsSync(full)) for (const p of importedPackages(fs.readFileSync(full, 'utf8'))) needed.add(p);
    }
    const missing = [...needed].filter((p) => !install.includes(p));
    if (missing.length) problems.push(`${rel}: the install line lacks ${missing.join(', ')} (imported by the examples)`);
  }
  if (!/^## Pairs with$/m.test(text)) problems.push(`${rel}: no "## Pairs with" section`);
  if (!/^## API\b/m.test(text)) problems.push(`${rel}: no "## API" section`);
  return problems;
}

/** Rewrites each example block of a README from its file. */
function writeExamples({ dir, readme }) {
  const text = fs.readFileSync(readme, 'utf8');
  const next = text.replace(markerPattern, (whole, file) => {
    const full = path.join(dir, file);
    return fs.existsSync(full) ? `<!-- example: ${file} -->\n\`\`\`ts\n${fs.readFileSync(full, 'utf8')}\`\`\`` : whole;
  });
  if (next !== text) fs.writeFileSync(readme, next);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const all = packageReadmes();
  if (process.argv.includes('--write')) for (const p of all) writeExamples(p);
  const problems = all.flatMap(readmeProblems);
  for (const p of problems) console.log(p);
  if (problems.length) process.exit(1);
}
