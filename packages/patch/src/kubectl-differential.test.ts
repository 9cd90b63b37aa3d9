import { isStatusError } from '@plat/api-model';
import { differentialCases } from '../test/differential-cases.js';
import { KUBECTL, kubectlAvailable, kubectlPatchLocal, type KubectlResult } from '../test/kubectl.js';
import { applyPatch } from './apply-patch.js';

// Every case runs through kubectl 1.32's `patch --local` and through applyPatch; results (or the
// error text kubectl prints after `error: `) must be the same.
const describeWithKubectl = kubectlAvailable ? describe : describe.skip;
if (!kubectlAvailable) {
  console.warn(`kubectl differential tests skipped: ${KUBECTL} not found (set PLAT_KUBECTL to a kubectl 1.32 binary)`);
}

function ours(c: (typeof differentialCases)[number]): { ok: true; value: unknown } | { ok: false; message: string } {
  const meta = c.object as { apiVersion: string; kind: string };
  try {
    return { ok: true, value: applyPatch(c.object, c.patch, c.type, { apiVersion: meta.apiVersion, kind: meta.kind }) };
  } catch (err) {
    if (!isStatusError(err)) throw err;
    return { ok: false, message: err.message };
  }
}

describeWithKubectl('patch results equal kubectl patch --local', () => {
  let results: KubectlResult[] = [];
  beforeAll(async () => {
    results = await kubectlPatchLocal(differentialCases);
  }, 120_000);

  it.each(differentialCases.map((c, i) => [c.name, i] as const))('%s', (_name, i) => {
    const c = differentialCases[i];
    const theirs = results[i];
    const mine = ours(c);
    if (theirs.code === 0) {
      expect(mine).toEqual({ ok: true, value: JSON.parse(theirs.stdout) });
    } else {
      // kubectl prints `error: <message>` and a newline unless the message ends with one.
      expect(mine.ok).toBe(false);
      const message = mine.ok ? '' : mine.message;
      expect(`error: ${message}${message.endsWith('\n') ? '' : '\n'}`).toBe(theirs.stderr);
    }
    // The inputs are never changed.
    expect(JSON.stringify(c.object)).toBe(JSON.stringify(differentialCases[i].object));
  });
});
