/**
 * Seeded random patches for the differential test against kubectl: a small linear congruential
 * generator, so every run produces the same cases.
 */
let seed = 1;
/** Restarts the generator: the same seed gives the same patches on every run. */
export function reseed(s: number): void {
  seed = s;
}
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const pick = <T,>(a: T[]): T => a[Math.floor(rnd() * a.length)];
const shuffle = <T,>(a: T[]): T[] => a.map((v) => [rnd(), v] as const).sort((x, y) => x[0] - y[0]).map((x) => x[1]);

function envPatch() {
  const items: unknown[] = [];
  for (const n of shuffle(['A', 'B', 'C', 'D', 'E']).slice(0, 1 + Math.floor(rnd() * 3))) {
    const r = rnd();
    if (r < 0.2) items.push({ name: n, $patch: 'delete' });
    else if (r < 0.3) items.push({ name: n, value: null });
    else items.push({ name: n, value: pick(['x', 'y']) });
  }
  if (rnd() < 0.1) items.push({ $patch: 'replace' });
  return items;
}
function containerPatch() {
  const c: Record<string, unknown> = { name: pick(['app', 'sidecar', 'new1', 'new2']) };
  if (rnd() < 0.5) c.image = pick(['i1', 'i2']);
  if (rnd() < 0.4) c.env = envPatch();
  if (rnd() < 0.2) c.args = ['a', 'b'];
  if (rnd() < 0.2) c['$setElementOrder/env'] = shuffle([{ name: 'A' }, { name: 'B' }, { name: 'C' }, { name: 'D' }]).slice(0, 3 + Math.floor(rnd() * 2));
  if (rnd() < 0.2) c.ports = [{ containerPort: pick([8080, 9090, 7070]), name: pick(['p', 'q']) }];
  if (rnd() < 0.1) c.$patch = 'delete';
  if (rnd() < 0.1) c.resources = { limits: { cpu: null, memory: '1Gi' } };
  return c;
}
/** A strategic merge patch for `deployment`: merge-keyed lists, directives, nulls. */
export function strategicPatchGen(): unknown {
  const spec: Record<string, unknown> = {};
  if (rnd() < 0.7) spec.containers = Array.from({ length: 1 + Math.floor(rnd() * 3) }, containerPatch);
  if (rnd() < 0.25) spec['$setElementOrder/containers'] = shuffle([{ name: 'app' }, { name: 'sidecar' }, { name: 'new1' }]).slice(0, 2 + Math.floor(rnd() * 2));
  if (rnd() < 0.3) spec.volumes = [{ name: pick(['data', 'cache', 'v3']), ...(rnd() < 0.5 ? { emptyDir: {} } : { $retainKeys: ['name', 'secret'], secret: { secretName: 's' } }) }];
  if (rnd() < 0.2) spec.tolerations = [{ key: 'z' }];
  if (rnd() < 0.2) spec.nodeSelector = rnd() < 0.5 ? null : { $patch: pick(['replace', 'delete']), a: 'b' };
  const metadata: Record<string, unknown> = {};
  if (rnd() < 0.3) metadata.finalizers = shuffle(['example.com/f1', 'example.com/f2', 'x', 'y']).slice(0, 2);
  if (!metadata.finalizers && rnd() < 0.3) metadata['$deleteFromPrimitiveList/finalizers'] = ['example.com/f1', 'x'];
  if (rnd() < 0.2) metadata['$setElementOrder/finalizers'] = shuffle(['example.com/f1', 'example.com/f2', 'example.com/f3']);
  if (rnd() < 0.2) metadata.ownerReferences = [{ uid: pick(['uid-a', 'uid-c']), name: 'o' }];
  if (rnd() < 0.2) metadata.labels = { tier: null, n: 'v' };
  return { metadata, spec: { template: { spec } } };
}

const paths = ['/metadata/labels/app', '/metadata/labels/new', '/metadata/finalizers/0', '/metadata/finalizers/2', '/metadata/finalizers/3', '/metadata/finalizers/-', '/metadata/finalizers/-1', '/metadata/finalizers/-4', '/metadata/finalizers/x', '/spec/replicas', '/spec/nope', '/spec/nope/deeper', '/spec/template/spec/containers/1/image', '/spec/template/spec/containers/5', '/spec/template/spec/containers/0/env/1', '/metadata/annotations/example.com~1owner', '/metadata/annotations/a~0b', '/spec/selector', '', '/', 'spec/paused', '/metadata/name/x'];
const values = [1, 'v', null, { a: 1 }, [1, 2], true];
/** One to three JSON patch operations on paths that exist, do not, or are malformed. */
export function jsonPatchGen(): unknown {
  return Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => {
    const op: Record<string, unknown> = { op: pick(['add', 'remove', 'replace', 'move', 'copy', 'test', 'test']) };
    if (rnd() < 0.97) op.path = pick(paths);
    if (op.op === 'move' || op.op === 'copy') op.from = pick(paths);
    if (op.op !== 'remove' && rnd() < 0.9) op.value = op.op === 'test' && rnd() < 0.5 ? pick([2, 'web', 'example.com/f1', { app: 'web' }]) : pick(values);
    return op;
  });
}
/** A merge patch with nested nulls, lists and scalars. */
export function mergePatchGen(depth = 0): unknown {
  const o: Record<string, unknown> = {};
  for (const k of shuffle(['metadata', 'spec', 'labels', 'replicas', 'template', 'x', 'finalizers']).slice(0, 1 + Math.floor(rnd() * 3))) {
    const r = rnd();
    o[k] = r < 0.2 ? null : r < 0.5 && depth < 3 ? mergePatchGen(depth + 1) : r < 0.7 ? [{ a: null, b: 1 }, null] : pick(values);
  }
  return o;
}
