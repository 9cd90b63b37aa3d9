import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments, type Tags } from 'yaml';
import { ClientError } from './client-error.js';

export type KubeObject = Record<string, unknown> & {
  apiVersion?: string;
  kind?: string;
  metadata?: Record<string, unknown> & { name?: string; namespace?: string };
};

/** One object read from an input, with where it came from (kubectl's `resource.Info`). */
export interface ResourceInfo {
  source: string;
  object: KubeObject;
}

export interface BuilderOptions {
  filenames?: string[];
  recursive?: boolean;
  kustomize?: string;
  /** Reads standard input for `-f -`. */
  readStdin?: () => Promise<string>;
  /** Fetches a URL for `-f https://...`; defaults to the platform fetch. */
  fetchUrl?: (url: string) => Promise<string>;
  signal?: AbortSignal;
}

export const fileExtensions = ['.json', '.yaml', '.yml'];

/**
 * YAML as sigs.k8s.io/yaml (go-yaml v2) reads it: YAML 1.1 booleans (`y`, `on`, `yes`) and octals,
 * but no base-60 numbers and no timestamps (both stay strings).
 */
const goYamlOptions = {
  prettyErrors: false,
  uniqueKeys: false,
  version: '1.1',
  customTags: (tags: Tags) =>
    tags.filter((t) => typeof t === 'string' || (t.format !== 'TIME' && t.tag !== 'tag:yaml.org,2002:timestamp')),
} as const;

/** Decodes a JSON or (multi-document) YAML stream into objects; `List` kinds are flattened. */
export function decodeObjects(text: string, source: string): KubeObject[] {
  const out: KubeObject[] = [];
  const trimmed = text.trimStart();
  let docs: unknown[];
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      docs = [JSON.parse(text)];
    } catch (err) {
      const msg = (err as Error).message;
      throw new ClientError('DecodeFailed', `error parsing ${source}: ${/end of (JSON )?input/i.test(msg) ? 'unexpected EOF' : msg}`);
    }
  } else {
    const parsed = parseAllDocuments(text, goYamlOptions);
    docs = [];
    for (const d of Array.isArray(parsed) ? parsed : [parsed]) {
      if (d.errors.length) {
        const e = d.errors[0];
        const line = e.linePos?.[0]?.line ?? 1;
        throw new ClientError('DecodeFailed', `error parsing ${source}: error converting YAML to JSON: yaml: line ${line}: ${e.message.split('\n')[0].replace(/ at line \d+, column \d+.*$/, '')}`);
      }
      const v = d.toJS({ maxAliasCount: 100 }) as unknown;
      if (v !== null && v !== undefined) docs.push(v);
    }
  }
  for (const doc of docs) {
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
      throw new ClientError('DecodeFailed', `error parsing ${source}: json: cannot unmarshal ${Array.isArray(doc) ? 'array' : typeof doc} into Go value of type map[string]interface {}`);
    }
    const obj = doc as KubeObject;
    if (typeof obj.kind !== 'string' || obj.kind === '') {
      throw new ClientError('DecodeFailed', `unable to decode "${source}": Object 'Kind' is missing in '${JSON.stringify(obj)}'`);
    }
    if (obj.kind.endsWith('List') && Array.isArray(obj.items)) {
      for (const item of obj.items as unknown[]) {
        if (item && typeof item === 'object' && !Array.isArray(item)) out.push(item as KubeObject);
      }
    } else out.push(obj);
  }
  return out;
}

function walkDirectory(dir: string, recursive: boolean, into: string[]): void {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (recursive) walkDirectory(full, recursive, into);
    } else if (fileExtensions.includes(path.extname(e.name))) into.push(full);
  }
}

async function fetchText(url: string, signal?: AbortSignal): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, { signal });
  } catch (err) {
    const cause = (err as { cause?: { message?: string } }).cause;
    throw new ClientError('URLFailed', `unable to read URL "${url}", ${cause?.message ?? (err as Error).message}`);
  }
  if (res.status !== 200) {
    throw new ClientError('URLFailed', `unable to read URL "${url}", server reported ${res.status} ${res.statusText}, status code=${res.status}`);
  }
  return res.text();
}

/**
 * kubectl's resource builder for `-f`, `-R` and `-k`: files, directories (only .json, .yaml and
 * .yml files; subfolders with -R), http(s) URLs and `-` for standard input.
 */
export async function buildResources(options: BuilderOptions): Promise<ResourceInfo[]> {
  const filenames = options.filenames ?? [];
  if (options.kustomize && (filenames.length > 0 || options.recursive)) {
    throw new ClientError('UsageError', 'only one of -f or -k can be specified');
  }
  if (options.kustomize) {
    const { runKustomization } = await import('./kustomize.js');
    return (await runKustomization(options.kustomize)).map((object) => ({ source: options.kustomize!, object }));
  }
  const infos: ResourceInfo[] = [];
  for (const name of filenames) {
    if (name === '-') {
      if (!options.readStdin) throw new ClientError('UsageError', 'reading from standard input is not available');
      for (const object of decodeObjects(await options.readStdin(), 'STDIN')) infos.push({ source: 'STDIN', object });
      continue;
    }
    if (/^https?:\/\//i.test(name)) {
      const text = options.fetchUrl ? await options.fetchUrl(name) : await fetchText(name, options.signal);
      for (const object of decodeObjects(text, name)) infos.push({ source: name, object });
      continue;
    }
    let st;
    try {
      st = statSync(name);
    } catch {
      throw new ClientError('PathNotFound', `the path "${name}" does not exist`);
    }
    const files: string[] = [];
    if (st.isDirectory()) {
      walkDirectory(name, !!options.recursive, files);
      if (files.length === 0) {
        throw new ClientError('PathNotFound', `error reading [${name}]: recognized file extensions are [${fileExtensions.join(' ')}]`);
      }
    } else files.push(name);
    for (const file of files) {
      for (const object of decodeObjects(readFileSync(file, 'utf8'), file)) infos.push({ source: file, object });
    }
  }
  return infos;
}

/**
 * Decodes a patch or other JSON/YAML text to a value, as kubectl's yaml.ToJSON does before
 * sending it; errors read `unable to parse "<text>": yaml: line N: ...`.
 */
export function decodeYamlOrJson(text: string): unknown {
  if (/^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      // YAML flow syntax is a superset of JSON: fall through for `{a: 1}`.
    }
  }
  const docs = parseAllDocuments(text, goYamlOptions);
  const first = Array.isArray(docs) ? docs[0] : docs;
  if (!first) return null;
  if (first.errors.length) {
    const e = first.errors[0];
    throw new ClientError(
      'DecodeFailed',
      `unable to parse ${JSON.stringify(text)}: yaml: line ${e.linePos?.[0]?.line ?? 1}: ${e.message.split('\n')[0].replace(/ at line \d+, column \d+.*$/, '')}`,
    );
  }
  return first.toJS({ maxAliasCount: 100 }) as unknown;
}
