/**
 * The cel-spec conformance suite through our environments (test/conformance/cel-spec-suite.ts),
 * compared with the record that `node tools/cel-conformance/report.mjs` wrote: a case that passed
 * must still pass, and the README table must be the recorded one, so neither can rot silently.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  kubernetesSections,
  record,
  renderTable,
  resultsFile,
  runConformance,
  tableBegin,
  tableEnd,
  type ConformanceRecord,
} from '../test/conformance/cel-spec-suite.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const regenerate = 'run `node tools/cel-conformance/report.mjs` to record the new figures';

describe('cel-spec conformance suite (the sections Kubernetes uses)', () => {
  const recorded = JSON.parse(readFileSync(root + resultsFile, 'utf8')) as ConformanceRecord;
  const current = record(runConformance());

  it('runs every section Kubernetes uses, at 95% or more of the runnable cases', () => {
    expect(current.sections.map((s) => s.section)).toEqual([...kubernetesSections]);
    const runnable = current.sections.reduce((n, s) => n + s.total - s.skipped, 0);
    const passed = current.sections.reduce((n, s) => n + s.passed, 0);
    expect(passed / runnable).toBeGreaterThanOrEqual(0.95);
  });

  it('passes every case the record says passes (no regression)', () => {
    const recordedFailing = new Set(recorded.failing);
    const regressions = current.failing.filter((id) => !recordedFailing.has(id));
    expect(regressions).toEqual([]);
  });

  it('matches the record exactly, so the README table is current', () => {
    const fixed = recorded.failing.filter((id) => !current.failing.includes(id));
    if (fixed.length) throw new Error(`${fixed.length} recorded failures now pass (${fixed.slice(0, 3).join(', ')}...): ${regenerate}`);
    expect({ sections: current.sections, skipped: current.skipped }).toEqual({ sections: recorded.sections, skipped: recorded.skipped });
  });

  it('shows the recorded table in packages/cel/README.md', () => {
    const readme = readFileSync(`${root}packages/cel/README.md`, 'utf8');
    const table = readme.slice(readme.indexOf(tableBegin) + tableBegin.length, readme.indexOf(tableEnd)).trim();
    expect(table).toBe(renderTable(recorded));
  });
});
