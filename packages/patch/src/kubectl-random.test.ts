import { isStatusError } from '@plat/api-model';
import { KUBECTL, kubectlAvailable, kubectlPatchLocal, type KubectlResult } from '../test/kubectl.js';
import { cronJob, deployment, node, pod, service, statefulSet } from '../test/objects.js';
import { jsonPatchGen, mergePatchGen, reseed, schemaDrivenPatchGen, strategicPatchGen } from '../test/random-patches.js';
import { applyPatch, type PatchType } from './apply-patch.js';
import { lookupStrategicSchema } from './strategic-registry.js';

// Seeded random patches against a Deployment and other kinds, each through kubectl 1.32 `patch --local` and
// through applyPatch. Outcomes kubectl itself leaves to chance or cannot produce are not compared:
// - which of two strategic errors in different subtrees is reported follows Go's random map
//   iteration order (kubectl answers differently from run to run);
// - kubectl crashes (nil pointer) on a JSON patch `test` without `value` at a missing path;
// - a JSON patch that turns the object into a list: kubectl fails decoding the result, which is
//   the CLI's business, not the patch's.
const describeWithKubectl = kubectlAvailable ? describe : describe.skip;
if (!kubectlAvailable) console.warn(`kubectl random differential tests skipped: ${KUBECTL} not found`);

interface Case {
  object: Record<string, unknown>;
  type: PatchType;
  patch: unknown;
}

function generate(type: PatchType, seed: number, count: number, gen: () => unknown): Case[] {
  reseed(seed);
  return Array.from({ length: count }, () => ({ object: deployment, type, patch: gen() }));
}

// The schema-driven generator cycles through several kinds.
function generateAcrossKinds(seed: number, count: number): Case[] {
  reseed(seed);
  const objects = [deployment, pod, service, node, statefulSet, cronJob] as Record<string, unknown>[];
  return Array.from({ length: count }, (_, i) => {
    const object = objects[i % objects.length];
    const schema = lookupStrategicSchema(object.apiVersion as string, object.kind as string);
    return { object, type: 'strategic' as const, patch: schemaDrivenPatchGen(object, schema) };
  });
}

const cases: Case[] = [
  ...generate('strategic', 99, 40, strategicPatchGen),
  ...generateAcrossKinds(11, 42),
  ...generate('json', 3, 36, jsonPatchGen),
  ...generate('merge', 8, 16, mergePatchGen),
];

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(Object.keys(o).sort().map((k) => [k, sortKeys(o[k])]));
  }
  return v;
}

function ours(c: Case): string {
  try {
    const meta = { apiVersion: c.object.apiVersion as string, kind: c.object.kind as string };
    return JSON.stringify(sortKeys(applyPatch(c.object, c.patch, c.type, meta)));
  } catch (err) {
    if (!isStatusError(err)) throw err;
    return `error: ${err.message}${err.message.endsWith('\n') ? '' : '\n'}`;
  }
}

function theirs(r: KubectlResult): string {
  return r.code === 0 ? JSON.stringify(sortKeys(JSON.parse(r.stdout))) : r.stderr;
}

describeWithKubectl('random patches equal kubectl patch --local', () => {
  let results: KubectlResult[] = [];
  beforeAll(async () => {
    results = await kubectlPatchLocal(cases);
  }, 300_000);

  it.each(cases.map((c, i) => [i, c.type, c.object.kind as string] as const))('case %i (%s, %s)', (i, type) => {
    const want = theirs(results[i]);
    const got = ours(cases[i]);
    if (want.includes('panic: ')) return;
    if (want.includes('unstructured.detector') && got.startsWith('[')) return;
    if (type === 'strategic' && want.startsWith('error: ') && got.startsWith('error: ')) return;
    expect({ patch: cases[i].patch, result: got }).toEqual({ patch: cases[i].patch, result: want });
  });

  it('covered successes and failures of every type', () => {
    for (const type of ['strategic', 'json', 'merge'] as const) {
      const idx = cases.flatMap((c, i) => (c.type === type ? [i] : []));
      expect(idx.some((i) => results[i].code === 0)).toBe(true);
      if (type !== 'merge') expect(idx.some((i) => results[i].code !== 0)).toBe(true);
    }
  });
});
