import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { applyPatch } from '@plat/patch';
import { ClientError } from './client-error.js';
import { decodeObjects } from './object-stream.js';
import type { KubeObject } from './unstructured.js';

/**
 * The common subset of kustomize that `-k` runs: resources (files and nested kustomizations),
 * patches / patchesStrategicMerge / patchesJson6902, then namespace, namePrefix/nameSuffix,
 * commonLabels / labels, commonAnnotations and images, in kustomize's order.
 */
const kustomizationFiles = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

/** Kinds kustomize treats as cluster-scoped (no namespace is set on them). */
const clusterScopedKinds = new Set([
  'Namespace', 'Node', 'PersistentVolume', 'StorageClass', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition',
  'APIService', 'PriorityClass', 'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'ClusterTrustBundle',
  'CertificateSigningRequest', 'IngressClass', 'RuntimeClass', 'CSIDriver', 'CSINode', 'VolumeAttachment',
]);

interface PatchTarget {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  labelSelector?: string;
  annotationSelector?: string;
}

interface Kustomization {
  resources?: string[];
  bases?: string[];
  namespace?: string;
  namePrefix?: string;
  nameSuffix?: string;
  commonLabels?: Record<string, string>;
  labels?: { pairs?: Record<string, string>; includeSelectors?: boolean; includeTemplates?: boolean }[];
  commonAnnotations?: Record<string, string>;
  patches?: { path?: string; patch?: string; target?: PatchTarget }[];
  patchesStrategicMerge?: string[];
  patchesJson6902?: { path?: string; patch?: string; target: PatchTarget }[];
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
}

type Json = Record<string, unknown>;

function rec(v: unknown): Json | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

function ensure(obj: Json, key: string): Json {
  const existing = rec(obj[key]);
  if (existing) return existing;
  const made: Json = {};
  obj[key] = made;
  return made;
}

function fail(msg: string): never {
  throw new ClientError('KustomizeFailed', msg);
}

function readKustomization(dir: string): Kustomization {
  const file = kustomizationFiles.map((f) => path.join(dir, f)).find((f) => existsSync(f));
  if (!file) {
    fail(`unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '${path.resolve(dir)}'`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(file, 'utf8'));
  } catch (err) {
    fail(`invalid Kustomization: ${(err as Error).message.split('\n')[0]}`);
  }
  return (rec(doc) ?? {}) as Kustomization;
}

function matchesSelector(labels: Json | undefined, selector: string | undefined): boolean {
  if (!selector) return true;
  return selector.split(',').every((term) => {
    const t = term.trim();
    const ne = t.indexOf('!=');
    if (ne > 0) return labels?.[t.slice(0, ne).trim()] !== t.slice(ne + 2).trim();
    const eq = t.indexOf('=');
    if (eq > 0) return labels?.[t.slice(0, eq).trim()] === t.slice(t[eq + 1] === '=' ? eq + 2 : eq + 1).trim();
    if (t.startsWith('!')) return labels?.[t.slice(1)] === undefined;
    return labels?.[t] !== undefined;
  });
}

function matchesTarget(obj: KubeObject, t: PatchTarget): boolean {
  const [group, version] = (obj.apiVersion ?? '').includes('/') ? (obj.apiVersion as string).split('/') : ['', obj.apiVersion ?? ''];
  const meta = obj.metadata ?? {};
  const re = (p: string | undefined, v: string | undefined) => p === undefined || new RegExp(`^(?:${p})$`).test(v ?? '');
  return (
    (t.group === undefined || t.group === group) &&
    (t.version === undefined || t.version === version) &&
    re(t.kind, obj.kind) &&
    re(t.name, meta.name) &&
    re(t.namespace, meta.namespace) &&
    matchesSelector(rec(meta.labels), t.labelSelector) &&
    matchesSelector(rec(meta.annotations), t.annotationSelector)
  );
}

function loadPatchText(dir: string, p: { path?: string; patch?: string }): string {
  if (p.patch !== undefined) return p.patch;
  if (p.path) return readFileSync(path.join(dir, p.path), 'utf8');
  return fail('patch requires path or patch');
}

/** Pod template specs inside an object, for image and label transforms. */
function podSpecs(obj: Json): Json[] {
  const spec = rec(obj.spec);
  if (!spec) return [];
  const out: Json[] = [];
  if (obj.kind === 'Pod') out.push(spec);
  const tmpl = rec(rec(spec.template)?.spec);
  if (tmpl) out.push(tmpl);
  const job = rec(rec(rec(rec(spec.jobTemplate)?.spec)?.template)?.spec);
  if (job) out.push(job);
  return out;
}

function setImages(obj: Json, images: NonNullable<Kustomization['images']>): void {
  for (const ps of podSpecs(obj)) {
    for (const listKey of ['containers', 'initContainers', 'ephemeralContainers']) {
      const list = ps[listKey];
      if (!Array.isArray(list)) continue;
      for (const c of list) {
        const container = rec(c);
        if (!container || typeof container.image !== 'string') continue;
        const image = container.image;
        const at = image.indexOf('@');
        const base = at >= 0 ? image.slice(0, at) : image;
        const colon = base.lastIndexOf(':');
        const hasTag = colon > base.lastIndexOf('/');
        const name = hasTag ? base.slice(0, colon) : base;
        const tagPart = at >= 0 ? image.slice(at) : hasTag ? base.slice(colon) : '';
        const rule = images.find((i) => i.name === name);
        if (!rule) continue;
        const newName = rule.newName ?? name;
        const suffix = rule.digest ? `@${rule.digest}` : rule.newTag ? `:${rule.newTag}` : tagPart;
        container.image = newName + suffix;
      }
    }
  }
}

const selectorKinds = new Set(['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'ReplicationController', 'Service', 'Job']);

function addLabels(obj: Json, pairs: Record<string, string>, selectors: boolean, templates: boolean): void {
  Object.assign(ensure(ensure(obj, 'metadata'), 'labels'), pairs);
  const spec = rec(obj.spec);
  if (!spec) return;
  if (selectors && selectorKinds.has(String(obj.kind))) {
    if (obj.kind === 'Service' || obj.kind === 'ReplicationController') Object.assign(ensure(spec, 'selector'), pairs);
    else if (obj.kind !== 'Job') Object.assign(ensure(ensure(spec, 'selector'), 'matchLabels'), pairs);
  }
  if ((selectors || templates) && rec(spec.template)) Object.assign(ensure(ensure(rec(spec.template)!, 'metadata'), 'labels'), pairs);
}

async function build(dir: string, depth: number): Promise<KubeObject[]> {
  if (depth > 20) fail(`kustomization nesting is deeper than 20 levels at '${dir}'`);
  const k = readKustomization(dir);
  let objects: KubeObject[] = [];
  for (const entry of [...(k.resources ?? []), ...(k.bases ?? [])]) {
    const full = path.join(dir, entry);
    let st;
    try {
      st = statSync(full);
    } catch {
      fail(`accumulating resources: accumulation err='accumulating resources from '${entry}': open ${path.resolve(full)}: no such file or directory'`);
    }
    if (st.isDirectory()) objects.push(...(await build(full, depth + 1)));
    else objects.push(...decodeObjects(readFileSync(full, 'utf8'), full));
  }

  const needPatch = (k.patches?.length ?? 0) + (k.patchesStrategicMerge?.length ?? 0) + (k.patchesJson6902?.length ?? 0) > 0;
  if (needPatch) {
    const strategic = (patchObj: KubeObject, targets: KubeObject[]) => {
      const pmeta = patchObj.metadata ?? {};
      const hits = targets.filter((o) => o.kind === patchObj.kind && o.metadata?.name === pmeta.name && (!pmeta.namespace || pmeta.namespace === o.metadata?.namespace));
      if (hits.length === 0) fail(`no matches for Id ${patchObj.kind}.${patchObj.apiVersion}/${String(pmeta.name)}; failed to find unique target for patch`);
      return hits;
    };
    const apply = (o: KubeObject, patch: unknown, type: 'json' | 'merge' | 'strategic'): KubeObject => {
      const kind = String(o.kind);
      const apiVersion = String(o.apiVersion ?? '');
      try {
        return applyPatch(o, patch, type, { apiVersion, kind }) as KubeObject;
      } catch {
        // Kinds without a strategic schema (custom resources) take a JSON merge patch, as in kustomize.
        if (type === 'strategic') return applyPatch(o, patch, 'merge', { apiVersion, kind }) as KubeObject;
        throw new ClientError('KustomizeFailed', `unable to apply patch to ${kind} ${String(o.metadata?.name)}`);
      }
    };
    const replace = (target: KubeObject, next: KubeObject) => {
      objects = objects.map((o) => (o === target ? next : o));
    };
    const smpTexts = (k.patchesStrategicMerge ?? []).map((p) =>
      /\n/.test(p) || p.trimStart().startsWith('{') ? p : readFileSync(path.join(dir, p), 'utf8'),
    );
    for (const text of smpTexts) {
      for (const patchObj of decodeObjects(text, 'patchesStrategicMerge')) {
        for (const t of strategic(patchObj, objects)) replace(t, apply(t, patchObj, 'strategic'));
      }
    }
    for (const p of k.patches ?? []) {
      const text = loadPatchText(dir, p);
      const parsed = parseYaml(text) as unknown;
      if (Array.isArray(parsed)) {
        if (!p.target) fail('must specify a target for JSON patch');
        for (const t of objects.filter((o) => matchesTarget(o, p.target!))) replace(t, apply(t, parsed, 'json'));
      } else {
        const patchObj = parsed as KubeObject;
        const targets = p.target ? objects.filter((o) => matchesTarget(o, p.target!)) : strategic(patchObj, objects);
        for (const t of targets) {
          const body = p.target ? { ...patchObj, metadata: { ...(patchObj.metadata ?? {}), name: t.metadata?.name } } : patchObj;
          replace(t, apply(t, body, 'strategic'));
        }
      }
    }
    for (const p of k.patchesJson6902 ?? []) {
      const ops = parseYaml(loadPatchText(dir, p)) as unknown;
      if (!Array.isArray(ops)) fail('patchesJson6902 patch must be a list of operations');
      for (const t of objects.filter((o) => matchesTarget(o, p.target))) replace(t, apply(t, ops, 'json'));
    }
  }

  for (const o of objects) {
    const meta = ensure(o, 'metadata');
    if (k.namespace && !clusterScopedKinds.has(String(o.kind))) meta.namespace = k.namespace;
    if ((k.namePrefix || k.nameSuffix) && o.kind !== 'Namespace' && o.kind !== 'CustomResourceDefinition') {
      meta.name = `${k.namePrefix ?? ''}${String(meta.name ?? '')}${k.nameSuffix ?? ''}`;
    }
    if (k.commonLabels) addLabels(o, k.commonLabels, true, true);
    for (const l of k.labels ?? []) if (l.pairs) addLabels(o, l.pairs, !!l.includeSelectors, !!l.includeTemplates || !!l.includeSelectors);
    if (k.commonAnnotations) {
      Object.assign(ensure(meta, 'annotations'), k.commonAnnotations);
      const tmpl = rec(rec(o.spec)?.template);
      if (tmpl) Object.assign(ensure(ensure(tmpl, 'metadata'), 'annotations'), k.commonAnnotations);
    }
    if (k.images?.length) setImages(o, k.images);
  }
  return objects;
}

/** Runs the kustomization in `dir` and returns the resulting objects. */
export async function runKustomization(dir: string): Promise<KubeObject[]> {
  let st;
  try {
    st = statSync(dir);
  } catch {
    fail(`must build at directory: not a valid directory: evalsymlink failure on '${dir}' : lstat ${path.resolve(dir)}: no such file or directory`);
  }
  if (!st.isDirectory()) fail(`must build at directory: '${path.resolve(dir)}': file is not directory`);
  return build(dir, 0);
}
