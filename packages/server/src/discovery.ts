import { createHash } from 'node:crypto';
import type { RequestContext } from './context.js';
import { negotiateOutput, type MediaTypeChoice } from './negotiation.js';
import { allVerbs, type ServedResource } from './resource.js';
import { encodeBody, newPathNotFound, wantsPretty, writeBody, writeObject } from './response.js';

/**
 * Discovery documents built once from the served resources: /api, /apis, /apis/<group>,
 * /apis/<group>/<version>, and the aggregated form (apidiscovery.k8s.io v2 and v2beta1) that
 * kubectl asks for first.
 */
/** What discovery lists of a resource; stored resources (with a definition) also get a storageVersionHash. */
export type DiscoveredResource = Pick<
  ServedResource,
  'group' | 'version' | 'resource' | 'singular' | 'kind' | 'namespaced' | 'shortNames' | 'categories' | 'verbs' | 'storageGroup' | 'storageVersion' | 'createOnly' | 'subresources'
>;

export class Discovery {
  private readonly groups = new Map<string, Map<string, DiscoveredResource[]>>();

  /** `resources` in servedResources' order (create-only ones, such as the review APIs, after the stored ones). */
  constructor(resources: readonly DiscoveredResource[]) {
    this.reset(resources);
  }

  /** Lists `resources` in place of what it listed (the served set changed while running). */
  reset(resources: readonly DiscoveredResource[]): void {
    this.groups.clear();
    for (const def of resources) {
      const versions = this.groups.get(def.group) ?? new Map<string, DiscoveredResource[]>();
      versions.set(def.version, [...(versions.get(def.version) ?? []), def]);
      this.groups.set(def.group, versions);
    }
  }

  private apiGroup(group: string) {
    const versions = [...(this.groups.get(group)?.keys() ?? [])].map((version) => ({ groupVersion: `${group}/${version}`, version }));
    return { name: group, versions, preferredVersion: versions[0] };
  }

  /** Named groups, as /apis lists them (the core group is served at /api). */
  private namedGroups(): string[] {
    return [...this.groups.keys()].filter((g) => g !== '');
  }

  apiGroupList() {
    return { kind: 'APIGroupList', apiVersion: 'v1', groups: this.namedGroups().map((g) => this.apiGroup(g)) };
  }

  apiGroupDocument(group: string) {
    if (group === '' || !this.groups.has(group)) return undefined;
    return { kind: 'APIGroup', apiVersion: 'v1', ...this.apiGroup(group) };
  }

  /** /apis/<group>/<version>, or /api/v1 for the core group (`group` ''): undefined when not served. */
  apiResourceList(group: string, version: string) {
    const defs = this.groups.get(group)?.get(version) ?? (group === '' && version === 'v1' ? [] : undefined);
    if (!defs) return undefined;
    return {
      kind: 'APIResourceList',
      // The core list carries no apiVersion, as kube-apiserver writes it.
      ...(group ? { apiVersion: 'v1' } : {}),
      groupVersion: group ? `${group}/${version}` : version,
      resources: defs.flatMap((d) => {
        const r: Record<string, unknown> = {
          name: d.resource,
          singularName: d.singular,
          namespaced: d.namespaced,
          kind: d.kind,
          verbs: d.verbs ?? allVerbs,
        };
        if (d.shortNames.length) r['shortNames'] = d.shortNames;
        if (d.categories.length) r['categories'] = d.categories;
        if (!d.createOnly) r['storageVersionHash'] = storageVersionHash(d);
        // Each subresource follows its resource as `<resource>/<subresource>`, with no singular
        // name, as kube-apiserver lists `namespaces/finalize`.
        const subs = Object.entries(d.subresources ?? {}).map(([name, sub]) => ({
          name: `${d.resource}/${name}`,
          singularName: '',
          namespaced: d.namespaced,
          kind: d.kind,
          verbs: [...sub.verbs],
        }));
        return [r, ...subs];
      }),
    };
  }

  /** apidiscovery.k8s.io APIGroupDiscoveryList for /apis (or /api, which serves no groups' resources). */
  aggregated(version: string, legacy: boolean) {
    const resource = (d: DiscoveredResource) => {
      const r: Record<string, unknown> = {
        resource: d.resource,
        responseKind: { group: d.group, version: d.version, kind: d.kind },
        scope: d.namespaced ? 'Namespaced' : 'Cluster',
        singularResource: d.singular,
        verbs: d.verbs ?? allVerbs,
      };
      if (d.shortNames.length) r['shortNames'] = d.shortNames;
      if (d.categories.length) r['categories'] = d.categories;
      // apidiscovery's APISubresourceDiscovery: nested in the resource rather than listed beside it.
      const subs = Object.entries(d.subresources ?? {});
      if (subs.length) {
        r['subresources'] = subs.map(([name, sub]) => ({
          subresource: name,
          responseKind: { group: d.group, version: d.version, kind: d.kind },
          verbs: [...sub.verbs],
        }));
      }
      return r;
    };
    const items = legacy
      ? [
          {
            metadata: { name: '', creationTimestamp: null },
            versions: [{ version: 'v1', resources: (this.groups.get('')?.get('v1') ?? []).map(resource), freshness: 'Current' }],
          },
        ]
      : this.namedGroups().map((group) => ({
          metadata: { name: group, creationTimestamp: null },
          versions: [...this.groups.get(group)!].map(([v, defs]) => ({ version: v, resources: defs.map(resource), freshness: 'Current' })),
        }));
    return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
  }
}

/**
 * Kubernetes' storageVersionHash: the first 8 bytes of sha256("group/version/kind") of the version
 * objects are stored in, base64 (one hash for every name of the same objects).
 */
export function storageVersionHash(def: Pick<ServedResource, 'storageVersion' | 'kind' | 'storageGroup'>): string {
  return createHash('sha256')
    .update(`${def.storageGroup}/${def.storageVersion}/${def.kind}`)
    .digest()
    .subarray(0, 8)
    .toString('base64');
}

function writeAggregated(ctx: RequestContext, choice: MediaTypeChoice, doc: unknown): void {
  const body = Buffer.from(encodeBody(doc, choice.format, wantsPretty(ctx)));
  const etag = `"${createHash('sha512').update(body).digest('hex').slice(0, 32).toUpperCase()}"`;
  ctx.res.setHeader('ETag', etag);
  if (ctx.req.headers['if-none-match'] === etag) {
    ctx.res.setHeader('Audit-Id', ctx.auditId);
    ctx.res.writeHead(304);
    ctx.res.end();
    return;
  }
  writeBody(ctx, 200, choice.contentType, body);
}

/** Serves the discovery paths; answers false when the path is not a discovery path. */
export function serveDiscovery(discovery: Discovery, ctx: RequestContext, serverAddress: string): boolean {
  const { info } = ctx;
  const parts = info.parts;
  if (info.apiPrefix === 'api' && parts.length === 0) {
    const choice = negotiateOutput(ctx.req.headers.accept, { allowedAs: ['APIGroupDiscoveryList'] });
    if (choice.as === 'APIGroupDiscoveryList') writeAggregated(ctx, choice, discovery.aggregated(choice.version!, true));
    else
      writeObject(
        ctx,
        200,
        { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] },
        choice,
      );
    return true;
  }
  if (info.apiPrefix === 'api' && parts.length === 1 && parts[0] === 'v1') {
    writeObject(ctx, 200, discovery.apiResourceList('', 'v1'), negotiateOutput(ctx.req.headers.accept, { allowedAs: [] }));
    return true;
  }
  if (info.apiPrefix !== 'apis') return false;
  if (parts.length === 0) {
    const choice = negotiateOutput(ctx.req.headers.accept, { allowedAs: ['APIGroupDiscoveryList'] });
    if (choice.as === 'APIGroupDiscoveryList') writeAggregated(ctx, choice, discovery.aggregated(choice.version!, false));
    else writeObject(ctx, 200, discovery.apiGroupList(), choice);
    return true;
  }
  const choice = negotiateOutput(ctx.req.headers.accept, { allowedAs: [] });
  const doc = parts.length === 1 ? discovery.apiGroupDocument(parts[0]!) : discovery.apiResourceList(parts[0]!, parts[1]!);
  if (!doc) throw newPathNotFound();
  writeObject(ctx, 200, doc, choice);
  return true;
}
