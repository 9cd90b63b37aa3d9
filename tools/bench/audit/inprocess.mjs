#!/usr/bin/env node
// The server CPU auditing adds to a GET, without the kernel, the load generator and the scheduler:
// tools/bench/apiserver/inprocess.mjs with one build on both sides, A audit off, B the recommended
// policy of docs/audit.md with the batch log backend (bench.mjs's flags, policy.mjs). Other flags
// pass through (--rounds, --requests, --pin, --profile [--heap], --top, --bundle).
//
//   node tools/bench/audit/inprocess.mjs --pin --rounds 10 --requests 15000
//   node tools/bench/audit/inprocess.mjs --audit-both --a base.mjs --b new.mjs --pin --rounds 10 --requests 15000
//
// --audit-both puts the recommended policy on both sides: two builds (bundles as ab.mjs makes
// them) compared with auditing on, round by round.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { auditServerArgs, recommendedPolicy } from './policy.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-bench-audit-inprocess-'));
try {
  // The policy file is shared; the log goes into each child's own data directory.
  const args = auditServerArgs(dir, recommendedPolicy())
    .filter((a) => !a.startsWith('--storage-backend='))
    .map((a) => (a.startsWith('--audit-log-path=') ? '--audit-log-path={data}/audit.log' : a));
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), '../apiserver/inprocess.mjs');
  // --audit-both: the recommended policy on both sides, to compare two builds (--a X --b Y) with auditing on.
  const both = process.argv.includes('--audit-both');
  const rest = process.argv.slice(2).filter((a) => a !== '--audit-both');
  const r = spawnSync(process.execPath, [script, ...rest, '--a-args', both ? args.join(' ') : '', '--b-args', args.join(' ')], { stdio: 'inherit' });
  process.exitCode = r.status ?? 1;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
