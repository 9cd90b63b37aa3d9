import { readFileSync, existsSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { ClientError } from './client-error.js';

/** The kubeconfig file format (`apiVersion: v1`, `kind: Config`), keys spelled as in the file. */
export interface Cluster {
  server?: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
  'proxy-url'?: string;
  'disable-compression'?: boolean;
  extensions?: unknown[];
}
export interface AuthInfo {
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  token?: string;
  tokenFile?: string;
  as?: string;
  'as-uid'?: string;
  'as-groups'?: string[];
  'as-user-extra'?: Record<string, string[]>;
  username?: string;
  password?: string;
  exec?: unknown;
  'auth-provider'?: unknown;
  extensions?: unknown[];
}
export interface Context {
  cluster?: string;
  user?: string;
  namespace?: string;
  extensions?: unknown[];
}
export interface NamedCluster {
  name: string;
  cluster: Cluster;
}
export interface NamedAuthInfo {
  name: string;
  user: AuthInfo;
}
export interface NamedContext {
  name: string;
  context: Context;
}
export interface KubeConfig {
  apiVersion: string;
  kind: string;
  preferences: Record<string, unknown>;
  clusters: NamedCluster[];
  users: NamedAuthInfo[];
  contexts: NamedContext[];
  'current-context': string;
  extensions?: unknown[];
}

/** A merged kubeconfig plus the file each entry came from (relative paths resolve against it). */
export interface LoadedKubeConfig {
  config: KubeConfig;
  /** Files read, in precedence order. */
  files: string[];
  /** The file `config use-context` writes to (kubectl's default-filename rule). */
  defaultFile: string;
  origin: {
    clusters: Map<string, string>;
    users: Map<string, string>;
    contexts: Map<string, string>;
  };
}

export interface KubeConfigSources {
  /** `--kubeconfig`: exactly this file, which must exist. */
  explicitPath?: string;
  /** The `KUBECONFIG` environment variable (path-list separated). */
  envValue?: string;
  /** Home directory; the default file is `$HOME/.plat/config`. */
  homeDir?: string;
}

export function defaultKubeConfigPath(homeDir = os.homedir()): string {
  return path.join(homeDir, '.plat', 'config');
}

export function emptyKubeConfig(): KubeConfig {
  return { apiVersion: 'v1', kind: 'Config', preferences: {}, clusters: [], users: [], contexts: [], 'current-context': '' };
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function namedList<T>(file: string, raw: unknown, field: string, inner: string): { name: string; value: T }[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    throw new ClientError('ConfigInvalid', `error loading config file "${file}": ${field} must be a list`);
  }
  return raw.map((entry, i) => {
    const rec = asRecord(entry);
    if (typeof rec.name !== 'string' || rec.name === '') {
      throw new ClientError('ConfigInvalid', `error loading config file "${file}": ${field}[${i}].name is required`);
    }
    return { name: rec.name, value: asRecord(rec[inner]) as T };
  });
}

/** Reads one kubeconfig file; `undefined` when it does not exist. */
export function readKubeConfigFile(file: string): KubeConfig | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ClientError('ConfigInvalid', `error loading config file "${file}": ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = text.trim() === '' ? {} : parseYaml(text);
  } catch (err) {
    const msg = (err as Error).message.split('\n')[0];
    throw new ClientError('ConfigInvalid', `error loading config file "${file}": yaml: ${msg}`);
  }
  const rec = asRecord(doc);
  if (rec.kind !== undefined && rec.kind !== 'Config') {
    throw new ClientError('ConfigInvalid', `error loading config file "${file}": no kind "${String(rec.kind)}" is registered for version "${String(rec.apiVersion ?? '')}"`);
  }
  return {
    apiVersion: 'v1',
    kind: 'Config',
    preferences: asRecord(rec.preferences),
    clusters: namedList<Cluster>(file, rec.clusters, 'clusters', 'cluster').map((e) => ({ name: e.name, cluster: e.value })),
    users: namedList<AuthInfo>(file, rec.users, 'users', 'user').map((e) => ({ name: e.name, user: e.value })),
    contexts: namedList<Context>(file, rec.contexts, 'contexts', 'context').map((e) => ({ name: e.name, context: e.value })),
    'current-context': typeof rec['current-context'] === 'string' ? rec['current-context'] : '',
    ...(Array.isArray(rec.extensions) ? { extensions: rec.extensions } : {}),
  };
}

/**
 * Loads the kubeconfig by kubectl's rules: `--kubeconfig` alone (must exist); else every file of
 * `KUBECONFIG` merged, where the first file to define a name (or current-context) wins and missing
 * files are skipped; else the default file, which may be absent.
 */
export function loadKubeConfig(sources: KubeConfigSources = {}): LoadedKubeConfig {
  let files: string[];
  let defaultFile: string;
  if (sources.explicitPath) {
    files = [sources.explicitPath];
    defaultFile = sources.explicitPath;
    if (!existsSync(sources.explicitPath)) {
      throw new ClientError('ConfigNotFound', `stat ${sources.explicitPath}: no such file or directory`);
    }
  } else if (sources.envValue) {
    const seen = new Set<string>();
    files = sources.envValue.split(path.delimiter).filter((f) => f !== '' && !seen.has(f) && seen.add(f));
    defaultFile = files.find((f) => existsSync(f)) ?? files[files.length - 1] ?? defaultKubeConfigPath(sources.homeDir);
  } else {
    files = [defaultKubeConfigPath(sources.homeDir)];
    defaultFile = files[0];
  }
  const merged = emptyKubeConfig();
  const origin = { clusters: new Map<string, string>(), users: new Map<string, string>(), contexts: new Map<string, string>() };
  const read: string[] = [];
  for (const file of files) {
    const cfg = readKubeConfigFile(file);
    if (!cfg) continue;
    read.push(file);
    for (const c of cfg.clusters) {
      if (origin.clusters.has(c.name)) continue;
      origin.clusters.set(c.name, file);
      merged.clusters.push(c);
    }
    for (const u of cfg.users) {
      if (origin.users.has(u.name)) continue;
      origin.users.set(u.name, file);
      merged.users.push(u);
    }
    for (const x of cfg.contexts) {
      if (origin.contexts.has(x.name)) continue;
      origin.contexts.set(x.name, file);
      merged.contexts.push(x);
    }
    if (!merged['current-context'] && cfg['current-context']) merged['current-context'] = cfg['current-context'];
    if (Object.keys(merged.preferences).length === 0) merged.preferences = cfg.preferences;
  }
  return { config: merged, files: read, defaultFile, origin };
}

/** Writes a new current-context into the default file, keeping everything else in that file. */
export function setCurrentContext(loaded: LoadedKubeConfig, name: string): void {
  if (!loaded.config.contexts.some((c) => c.name === name)) {
    throw new ClientError('ContextNotFound', `no context exists with the name: "${name}"`);
  }
  const file = loaded.defaultFile;
  const current = readKubeConfigFile(file) ?? emptyKubeConfig();
  current['current-context'] = name;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, stringifyYaml(current), { mode: 0o600 });
}
