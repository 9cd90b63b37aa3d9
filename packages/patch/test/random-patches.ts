/**
 * Seeded random patches for the differential test against kubectl: a small linear congruential
 * generator, so every run produces the same cases.
 */
import type { StrategicSchema } from '../src/strategic-schema.js';

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

// ---------------------------------------------------------------------------------------------
// Schema-driven strategic merge patches for any object: walks the object and, guided by the
// kind's schema, changes scalars, deletes with null, adds new values (with nulls inside), uses
// `$patch`, `$retainKeys`, merge-keyed items (existing and new, deleted), `$setElementOrder`
// consistent with the patch, and `$deleteFromPrimitiveList`.
const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function genScalar(): unknown {
  return pick(['s1', 's2', 7, true, 'x']);
}
function genNew(depth: number): unknown {
  const r = rnd();
  if (r < 0.5 || depth > 2) return genScalar();
  if (r < 0.8) return { k: genScalar(), n: null, m: depth < 2 ? { z: null, y: 1 } : 1 };
  return [genScalar(), { a: null, b: 1 }];
}

function genMap(orig: Record<string, unknown>, schema: StrategicSchema | undefined, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const keys = Object.keys(orig).filter((k) => k !== 'kind' && k !== 'apiVersion');
  const n = 1 + Math.floor(rnd() * 2);
  for (let i = 0; i < n; i++) {
    const r = rnd();
    if (r < 0.1) { out[pick(['newA', 'newB'])] = genNew(depth); continue; }
    if (!keys.length) continue;
    const k = pick(keys);
    const v = orig[k];
    const meta = schema?.lookupField(k);
    const sub = meta?.shape === 'map' ? undefined : meta?.schema;
    if (r < 0.18) { out[k] = null; continue; }
    if (isObj(v)) {
      const rr = rnd();
      if (rr < 0.08) out[k] = { $patch: pick(['replace', 'delete']), q: 1 };
      else if (rr < 0.16) { const keep = shuffle(Object.keys(v)).slice(0, 1); const m = genMap(v, sub, depth + 1); for (const kk of Object.keys(m)) if (m[kk] !== null && !keep.includes(kk)) keep.push(kk); out[k] = { ...m, $retainKeys: keep }; }
      else out[k] = genMap(v, sub, depth + 1);
    } else if (Array.isArray(v)) {
      out[k] = genList(v, meta?.patchMergeKey, meta?.patchStrategies?.includes('merge') ?? false, sub, depth, out, k);
    } else out[k] = genScalar();
  }
  return out;
}

function genList(v: unknown[], mergeKey: string | undefined, merge: boolean, sub: StrategicSchema | undefined, depth: number, parent: Record<string, unknown>, key: string): unknown {
  const maps = v.length > 0 && isObj(v[0]);
  if (maps && mergeKey) {
    const items: unknown[] = [];
    const existing = v.map((x) => (x as Record<string, unknown>)[mergeKey]);
    for (let i = 0; i < 1 + Math.floor(rnd() * 3); i++) {
      const r = rnd();
      const useExisting = rnd() < 0.6 && existing.length;
      const kv = useExisting ? pick(existing) : pick(['nk1', 'nk2', 9999]);
      if (items.some((it) => (it as Record<string, unknown>)[mergeKey] === kv)) continue;
      if (r < 0.15) items.push({ [mergeKey]: kv, $patch: 'delete' });
      else if (useExisting) items.push({ ...genMap(v[existing.indexOf(kv)] as Record<string, unknown>, sub, depth + 1), [mergeKey]: kv });
      else items.push({ [mergeKey]: kv, extra: genNew(depth + 1) });
    }
    if (rnd() < 0.05) items.push({ $patch: 'replace' });
    if (rnd() < 0.3) {
      const newKeys = items.filter((it) => !(it as Record<string, unknown>).$patch).map((it) => (it as Record<string, unknown>)[mergeKey]);
      const all = shuffle([...new Set([...existing, ...newKeys])]);
      // keep patch items' relative order consistent with the order list
      const order = all.filter((x) => !newKeys.includes(x));
      const ordered = shuffle(order).concat(newKeys);
      parent[`$setElementOrder/${key}`] = ordered.map((x) => ({ [mergeKey]: x }));
    }
    return items;
  }
  if (!maps && merge) {
    if (rnd() < 0.3) { parent[`$deleteFromPrimitiveList/${key}`] = [pick(v as string[]), 'zz']; return undefined; }
    const add = shuffle(['p1', 'p2', ...(v as unknown[])]).slice(0, 2);
    if (rnd() < 0.3) parent[`$setElementOrder/${key}`] = shuffle([...new Set([...(v as unknown[]), ...add])]);
    return add;
  }
  return rnd() < 0.5 ? [genScalar()] : v.length && isObj(v[0]) ? [{ ...(v[0] as object), w: 1 }] : [];
}

function clean(o: unknown): unknown {
  if (Array.isArray(o)) return o.map(clean);
  if (isObj(o)) { const r: Record<string, unknown> = {}; for (const [k, v] of Object.entries(o)) if (v !== undefined) r[k] = clean(v); return r; }
  return o;
}


/** A strategic merge patch for `object` guided by its kind's schema. */
export function schemaDrivenPatchGen(object: Record<string, unknown>, schema: StrategicSchema | undefined): unknown {
  return clean(genMap(object, schema, 0));
}
