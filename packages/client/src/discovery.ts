import { mkdirSync, readFileSync, statSync, writeFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { ClientError } from './client-error.js';
import type { RestClient } from './rest-client.js';

/** One resource as discovery lists it, with its group and version filled in. */
export interface ApiResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group: string;
  version: string;
  kind: string;
  verbs: string[];
  shortNames: string[];
  categories: string[];
  /** Names of subresources (`status`, `scale`...). */
  subresources: string[];
}

export interface ApiGroup {
  name: string;
  versions: { groupVersion: string; version: string }[];
  preferredVersion?: { groupVersion: string; version: string };
}

interface ApiResourceListWire {
  groupVersion: string;
  resources: {
    name: string;
    singularName?: string;
    namespaced?: boolean;
    group?: string;
    version?: string;
    kind: string;
    verbs?: string[];
    shortNames?: string[];
    categories?: string[];
  }[];
}

export interface DiscoveryOptions {
  /** `--cache-dir`; default `$HOME/.plat/cache`. Empty string disables the disk cache. */
  cacheDir?: string;
  /** How long cached discovery stays fresh (kubectl: 6 hours). */
  ttlMs?: number;
}

export function defaultCacheDir(homeDir = os.homedir()): string {
  return path.join(homeDir, '.plat', 'cache');
}

/** kubectl's per-server cache folder name: the host and port with unsafe characters replaced. */
export function discoveryCacheFolder(cacheDir: string, server: string): string {
  const host = server.replace(/^[a-z]+:\/\//i, '').replace(/[^\w/.]/g, '_');
  return path.join(cacheDir, 'discovery', host);
}

/** Kubernetes version strings sort GA > beta > alpha, then by number. */
function versionPriority(v: string): number {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
  if (!m) return 0;
  const major = Number(m[1]);
  const level = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
  return level * 1e6 + major * 1e3 + Number(m[3] ?? 0);
}

/**
 * Server discovery (/api, /apis and each group version) with kubectl's on-disk cache under
 * `<cacheDir>/discovery/<host_port>/`. A lookup that misses in cached data refreshes once.
 */
export class DiscoveryClient {
  private readonly client: RestClient;
  private readonly folder?: string;
  private readonly ttlMs: number;
  private groups?: ApiGroup[];
  private readonly resourceLists = new Map<string, ApiResource[]>();
  private fresh = false;

  constructor(client: RestClient, options: DiscoveryOptions = {}) {
    this.client = client;
    const cacheDir = options.cacheDir ?? defaultCacheDir();
    this.folder = cacheDir ? discoveryCacheFolder(cacheDir, client.config.server) : undefined;
    this.ttlMs = options.ttlMs ?? 6 * 3600_000;
  }

  private readCache<T>(rel: string): T | undefined {
    if (!this.folder) return undefined;
    const file = path.join(this.folder, rel);
    try {
      if (Date.now() - statSync(file).mtimeMs > this.ttlMs) return undefined;
      return JSON.parse(readFileSync(file, 'utf8')) as T;
    } catch {
      return undefined;
    }
  }

  private writeCache(rel: string, value: unknown): void {
    if (!this.folder) return;
    const file = path.join(this.folder, rel);
    try {
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o750 });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(value), { mode: 0o660 });
      renameSync(tmp, file);
    } catch {
      // An unwritable cache only costs speed, as in kubectl.
    }
  }

  /** Drops everything cached in memory and on disk for this server. */
  invalidate(): void {
    this.groups = undefined;
    this.resourceLists.clear();
    this.fresh = true;
  }

  async serverGroups(): Promise<ApiGroup[]> {
    if (this.groups) return this.groups;
    const cached = this.fresh ? undefined : this.readCache<{ groups: ApiGroup[] }>('servergroups.json');
    if (cached) return (this.groups = cached.groups);
    const groups: ApiGroup[] = [];
    try {
      const legacy = await this.client.request<{ versions?: string[] }>({ path: '/api' });
      const versions = legacy.body.versions ?? [];
      if (versions.length) {
        groups.push({
          name: '',
          versions: versions.map((v) => ({ groupVersion: v, version: v })),
          preferredVersion: { groupVersion: versions[0], version: versions[0] },
        });
      }
    } catch (err) {
      if ((err as { code?: unknown }).code !== 404) throw err;
    }
    const apis = await this.client.request<{ groups?: ApiGroup[] }>({ path: '/apis' });
    groups.push(...(apis.body.groups ?? []));
    this.writeCache('servergroups.json', { kind: 'APIGroupList', apiVersion: 'v1', groups });
    return (this.groups = groups);
  }

  async resourcesFor(group: string, version: string): Promise<ApiResource[]> {
    const key = group ? `${group}/${version}` : version;
    const known = this.resourceLists.get(key);
    if (known) return known;
    const rel = path.join(group, version, 'serverresources.json');
    let list = this.fresh ? undefined : this.readCache<ApiResourceListWire>(rel);
    if (!list) {
      try {
        list = (await this.client.request<ApiResourceListWire>({ path: group ? `/apis/${group}/${version}` : `/api/${version}` })).body;
      } catch (err) {
        if ((err as { code?: unknown }).code === 404) list = { groupVersion: key, resources: [] };
        else throw err;
      }
      this.writeCache(rel, list);
    }
    const subs = new Map<string, string[]>();
    for (const r of list.resources ?? []) {
      const slash = r.name.indexOf('/');
      if (slash > 0) subs.set(r.name.slice(0, slash), [...(subs.get(r.name.slice(0, slash)) ?? []), r.name.slice(slash + 1)]);
    }
    const resources = (list.resources ?? [])
      .filter((r) => !r.name.includes('/'))
      .map((r) => ({
        name: r.name,
        singularName: r.singularName || r.kind.toLowerCase(),
        namespaced: !!r.namespaced,
        group: r.group ?? group,
        version: r.version ?? version,
        kind: r.kind,
        verbs: r.verbs ?? [],
        shortNames: r.shortNames ?? [],
        categories: r.categories ?? [],
        subresources: subs.get(r.name) ?? [],
      }));
    this.resourceLists.set(key, resources);
    return resources;
  }

  /** Every resource of the preferred version of every group (what `api-resources` lists). */
  async preferredResources(): Promise<ApiResource[]> {
    const out: ApiResource[] = [];
    for (const g of await this.serverGroups()) {
      const v = g.preferredVersion?.version ?? g.versions[0]?.version;
      if (v) out.push(...(await this.resourcesFor(g.name, v)));
    }
    return out;
  }

  private async allVersionsOf(group?: string): Promise<ApiResource[]> {
    const out: ApiResource[] = [];
    for (const g of await this.serverGroups()) {
      if (group !== undefined && g.name !== group) continue;
      const preferred = g.preferredVersion?.version;
      const versions = [...g.versions].sort((a, b) =>
        a.version === preferred ? -1 : b.version === preferred ? 1 : versionPriority(b.version) - versionPriority(a.version),
      );
      for (const v of versions) out.push(...(await this.resourcesFor(g.name, v.version)));
    }
    return out;
  }

  private async withRefresh<T>(find: () => Promise<T | undefined>): Promise<T | undefined> {
    const hit = await find();
    if (hit !== undefined || this.fresh) return hit;
    this.invalidate();
    return find();
  }

  /**
   * Resolves a command-line TYPE: plural, singular, kind or short name, optionally qualified as
   * `type.group` or `type.version.group`, as kubectl's RESTMapper does.
   */
  async resolveType(type: string): Promise<ApiResource> {
    const lower = type.toLowerCase();
    const matches = (r: ApiResource, name: string) =>
      r.name === name || r.singularName === name || r.kind.toLowerCase() === name || r.shortNames.includes(name);
    const found = await this.withRefresh(async () => {
      const dot = lower.indexOf('.');
      if (dot > 0) {
        const name = lower.slice(0, dot);
        const rest = lower.slice(dot + 1);
        const vdot = rest.indexOf('.');
        if (vdot > 0 && /^v\d+((alpha|beta)\d+)?$/.test(rest.slice(0, vdot))) {
          const version = rest.slice(0, vdot);
          const group = rest.slice(vdot + 1);
          const hit = (await this.allVersionsOf(group)).find((r) => r.version === version && matches(r, name));
          if (hit) return hit;
        }
        const hit = (await this.allVersionsOf(rest)).find((r) => matches(r, name));
        if (hit) return hit;
      }
      return (await this.allVersionsOf()).find((r) => matches(r, lower));
    });
    if (!found) throw new ClientError('ResourceTypeNotFound', `the server doesn't have a resource type "${type}"`);
    return found;
  }

  /** Maps an object's apiVersion and kind to its resource; `undefined` when the server has none. */
  async resourceForKind(apiVersion: string, kind: string): Promise<ApiResource | undefined> {
    const slash = apiVersion.indexOf('/');
    const group = slash >= 0 ? apiVersion.slice(0, slash) : '';
    const version = slash >= 0 ? apiVersion.slice(slash + 1) : apiVersion;
    return this.withRefresh(async () => {
      const groups = await this.serverGroups();
      if (!groups.some((g) => g.name === group && g.versions.some((v) => v.version === version))) return undefined;
      return (await this.resourcesFor(group, version)).find((r) => r.kind === kind);
    });
  }
}

/** The request path of a resource collection or object. */
/** Escapes a path segment as Go's url.PathEscape does (`:` and `@` stay as they are). */
function pathSegment(s: string): string {
  return encodeURIComponent(s).replace(/%3A/gi, ':').replace(/%40/g, '@');
}

export function resourcePath(r: Pick<ApiResource, 'group' | 'version' | 'name' | 'namespaced'>, namespace?: string, name?: string, subresource?: string): string {
  let p = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  if (r.namespaced && namespace) p += `/namespaces/${pathSegment(namespace)}`;
  p += `/${r.name}`;
  if (name !== undefined) p += `/${pathSegment(name)}`;
  if (subresource) p += `/${subresource}`;
  return p;
}
