// What the audit benchmarks run the server and the filter with: the recommended policy of
// docs/audit.md, and the flags of a server that audits to a log in batch mode.
import fs from 'node:fs';
import path from 'node:path';
import { root } from '../lib/apiserver-harness.mjs';

/**
 * The recommended policy's YAML, as the server reads it from a file: decoded from its bytes, so a
 * flat one-byte string (a slice of the doc's text would keep the doc's two-byte representation).
 */
export function recommendedPolicy() {
  const doc = fs.readFileSync(path.join(root, 'docs/audit.md'), 'utf8');
  return Buffer.from(/### Recommended policy[\s\S]*?```yaml\n([\s\S]*?)```/.exec(doc)[1]).toString('utf8');
}

/** Server flags: memory storage, and with `policy` that policy (written into `dataDir`) with a batch-mode log beside it. */
export function auditServerArgs(dataDir, policy) {
  const args = ['--storage-backend=memory'];
  if (policy) {
    fs.writeFileSync(path.join(dataDir, 'policy.yaml'), policy);
    args.push(`--audit-policy-file=${path.join(dataDir, 'policy.yaml')}`, `--audit-log-path=${path.join(dataDir, 'audit.log')}`, '--audit-log-mode=batch');
  }
  return args;
}
