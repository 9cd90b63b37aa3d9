#!/usr/bin/env node
// Start-up benchmark of `clientctl patch --local ... -o json` against `kubectl patch --local` in the
// same run: each command runs RUNS times (interleaved, after warm-up), the medians are compared,
// with the range (fastest–slowest). The single executable (dist/sea/clientctl, `npm run build:sea`)
// runs too when it exists; `--sea LABEL=PATH` adds another build of it (a variant of
// tools/sea/build-sea.mjs built and copied aside), and so do the floors when built.
// `--only A,B,...` keeps only the commands of those labels (for example `node -e 0,clientctl SEA`
// and the --sea builds, for more rounds of an A/B); each round runs the commands in a new random
// order, so that none always follows the same neighbour.
// Usage: node tools/bench/clientctl/bench.mjs [--runs 20] [--sea LABEL=PATH]... [--only LABEL,...]   (build first: npx nx run clientctl:build)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const runsFlag = process.argv.indexOf('--runs');
const runs = runsFlag > 0 ? Number(process.argv[runsFlag + 1]) : 20;
const kubectl = process.env.KUBECTL ?? '/usr/bin/kubectl';
const bin = path.join(root, 'apps', 'clientctl', 'bin', 'clientctl.mjs');
if (!existsSync(path.join(root, 'apps', 'clientctl', 'dist', 'main.mjs'))) {
  console.error('build clientctl first: npx nx run clientctl:build');
  process.exit(1);
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'clientctl-bench-'));
const file = path.join(tmp, 'deployment.yaml');
writeFileSync(
  file,
  `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.25
`,
);
const patch = '{"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}}}';
const args = ['patch', '--local', '-f', file, '-p', patch, '-o', 'json'];
const env = { PATH: process.env.PATH, HOME: tmp, KUBECONFIG: path.join(tmp, 'none') };

const commands = {
  kubectl: [kubectl, args],
  clientctl: [process.execPath, [bin, ...args]],
  'node -e 0': [process.execPath, ['-e', '0']],
};
const sea = path.join(root, 'dist', 'sea', 'clientctl');
if (existsSync(sea)) commands['clientctl SEA'] = [sea, args];
// The floors (`npm run build:sea -- floor floor-snapshot`): executables whose main does nothing,
// with a code cache and with an empty start-up snapshot; they ignore the arguments.
for (const [label, name] of [['SEA floor', 'floor'], ['SEA floor, snapshot', 'floor-snapshot']]) {
  const exe = path.join(root, 'dist', 'sea', name);
  if (existsSync(exe)) commands[label] = [exe, args];
}
process.argv.forEach((a, i) => {
  if (a !== '--sea') return;
  const [label, exe] = process.argv[i + 1].split('=');
  commands[label] = [path.resolve(exe), args];
});

/**
 * CPU time (user + system) of one run, from bash's `times` (the children's line): on a machine
 * shared with other work, wall time mostly measures the wait for a CPU, CPU time the work itself.
 */
function cpuOnce([cmd, argv]) {
  const r = spawnSync('/bin/bash', ['-c', '"$@" >/dev/null 2>&1; times', 'bash', cmd, ...argv], { env, encoding: 'utf8' });
  const [user, sys] = r.stdout.trim().split('\n')[1].split(/\s+/).map((t) => {
    const m = /^(\d+)m([\d.]+)s$/.exec(t);
    return m ? (Number(m[1]) * 60 + Number(m[2])) * 1000 : 0;
  });
  return user + sys;
}

function once([cmd, argv]) {
  const start = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed: ${r.stderr}`);
  return { ms, out: r.stdout };
}

const onlyFlag = process.argv.indexOf('--only');
const only = onlyFlag > 0 ? new Set(process.argv[onlyFlag + 1].split(',')) : undefined;
if (only) only.add('node -e 0'); // the baseline of every ratio
const haveKubectl = existsSync(kubectl) && (!only || only.has('kubectl'));
const names = Object.keys(commands).filter((n) => (n !== 'kubectl' || haveKubectl) && (!only || only.has(n)));
const samples = Object.fromEntries(names.map((n) => [n, []]));
for (const n of names) once(commands[n]); // warm the page cache
if (haveKubectl && names.includes('clientctl') && once(commands.kubectl).out !== once(commands.clientctl).out) {
  console.error('warning: clientctl and kubectl outputs differ');
}
const cpu = Object.fromEntries(names.map((n) => [n, []]));
const shuffled = () => {
  const order = [...names];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
};
for (let i = 0; i < runs; i++) {
  for (const n of shuffled()) {
    samples[n].push(once(commands[n]).ms);
    cpu[n].push(cpuOnce(commands[n]));
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const base = haveKubectl ? median(samples.kubectl) : undefined;
const nodeBase = median(samples['node -e 0']);
console.log(`clientctl patch --local -f deployment.yaml -p ... -o json: median (range) of ${runs} runs (${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(2)})`);
const width = Math.max(...names.map((n) => n.length)) + 1;
for (const n of names) {
  const m = median(samples[n]);
  const range = `(${Math.min(...samples[n]).toFixed(0)}–${Math.max(...samples[n]).toFixed(0)})`;
  console.log(`${n.padEnd(width)} ${m.toFixed(1).padStart(7)} ms ${range.padEnd(11)}${base ? `   ${(m / base).toFixed(2)}x kubectl` : ''}   ${(m / nodeBase).toFixed(2)}x node -e 0`);
}
const nodeCpu = median(cpu['node -e 0']);
console.log(`CPU time (user + system), median (range) of ${runs} runs:`);
for (const n of names) {
  const m = median(cpu[n]);
  console.log(`${n.padEnd(width)} ${m.toFixed(0).padStart(7)} ms (${Math.min(...cpu[n]).toFixed(0)}–${Math.max(...cpu[n]).toFixed(0)})   ${(m / nodeCpu).toFixed(2)}x node -e 0`);
}
