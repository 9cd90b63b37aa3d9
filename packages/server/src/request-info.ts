import { goQuote, newBadRequest } from '@plat/api-model';
import { BoundedMemo } from './bounded-memo.js';
import { parseQueryBool } from './query-bool.js';

/**
 * What a request is about, derived from its method and path the way Kubernetes'
 * RequestInfoFactory does: resource requests under /api and /apis get a verb
 * (get, list, watch, create, update, patch, delete, deletecollection) and a resource;
 * everything else is a non-resource request whose verb is the lower-case HTTP method.
 */
export interface RequestInfo {
  isResourceRequest: boolean;
  /** The percent-decoded path (Go's `URL.Path`): what routing, authentication and authorization see. */
  path: string;
  verb: string;
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** Path segments after the prefix (for discovery routing of non-resource requests). */
  parts: readonly string[];
  /**
   * `group/version/resource` of a resource request, the key of the server's resource scopes and
   * of its served resources. Made once here (a cut of the path where it stands there whole):
   * the first Map lookup of a string made for the request costs V8 its flattening and hashing:
   * 0.56 µs for a joined key of this length, 0.25 for a cut (a microbenchmark at load 7). Routing
   * and the request metrics each joined and looked up their own: 0.3-0.35 µs each in
   * inprocess.mjs --profile.
   * Absent where a caller made the info itself.
   */
  resourceKey?: string;
}

/** Subresources of a namespace, which stay with `namespaces/<ns>` instead of starting a resource path. */
const namespaceSubresources: ReadonlySet<string> = new Set(['status', 'finalize']);

const methodVerbs: ReadonlyMap<string, string> = new Map([
  ['POST', 'create'],
  ['GET', 'get'],
  ['HEAD', 'get'],
  ['PUT', 'update'],
  ['PATCH', 'patch'],
  ['DELETE', 'delete'],
]);

/**
 * Percent-decodes a request path once, as Go's URL parser does for `URL.Path` before
 * kube-apiserver splits it into segments: `%3A` is a `:` of a name, and an encoded `/` (`%2F`)
 * separates segments like a literal one, so no segment (a name) ever holds a slash. Bytes that
 * are not UTF-8 become U+FFFD (Go keeps them raw; no valid name contains them). A `%` without
 * two hex digits is Go's 400: `invalid URL escape "%zz"`.
 */
export function decodeRequestPath(path: string): string {
  if (!path.includes('%')) return path;
  const bad = /%(?![0-9A-Fa-f]{2})/.exec(path);
  if (bad) throw newBadRequest(`invalid URL escape ${goQuote(path.slice(bad.index, bad.index + 3))}`);
  // A run of escapes is a run of bytes (a multi-byte character is always one run).
  return path.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => Buffer.from(run.replaceAll('%', ''), 'hex').toString('utf8'));
}

/**
 * Bounds of the memo of GET request infos ({@link requestInfoFor}; docs/operations.md, limits):
 * entries (the memo starts empty again when full) and the longest path remembered.
 */
export const requestInfoMemoEntries = 4096;
export const requestInfoMemoPathLength = 256;

/** GET request infos by raw path, frozen (see {@link requestInfoFor}). */
const getInfos = new BoundedMemo<RequestInfo>(requestInfoMemoEntries, requestInfoMemoPathLength);

/**
 * The request info of `rawPath` (percent-encoding as the client sent it; decoded here, once).
 * Frozen: the same info may answer many requests.
 *
 * A GET's info is remembered by its raw path: clients GET the same few paths again and again,
 * and the info depends only on the method and the path, and on the query only through
 * `watch` (applied to the remembered info on each request). One Map lookup of the path instead
 * of decoding and cutting it, and the info's strings (name, namespace, resource key) are then
 * the same string objects each time, so every later Map lookup by them (served resources,
 * metrics series, storage keys) finds their hash already computed. `requestInfoFor` was
 * 1.07-1.42 µs of a GET's perf samples (perf-native.mjs, load 1.7-2.7) and 0.69 µs self time
 * in-process (inprocess.mjs --profile); with the memo it is below the profile's top 80 (under
 * 0.1 µs), and perf finds 0.2 µs for the Map lookup and 0.1 for hashing the path; 354 B of a
 * GET's garbage gone (docs/performance.md "apiserver", fourth round).
 * Bounded: {@link requestInfoMemoEntries} paths of at most {@link requestInfoMemoPathLength}
 * characters; a full memo is emptied, so a client walking many paths costs one failed lookup and
 * one insert per request, and memory stays bounded.
 */
export function requestInfoFor(method: string, rawPath: string, query: URLSearchParams): RequestInfo {
  let info: RequestInfo | undefined;
  if (method === 'GET' && rawPath.length <= getInfos.maxKeyLength) {
    info = getInfos.get(rawPath);
    if (info === undefined) {
      info = pathInfo(method, rawPath);
      getInfos.set(rawPath, info);
    }
  } else {
    info = pathInfo(method, rawPath);
  }
  return withWatchQuery(info, query);
}

/** {@link requestInfoFor} without the memo: what the memo must answer for every path (fuzz-tested). */
export function requestInfoUnmemoised(method: string, rawPath: string, query: URLSearchParams): RequestInfo {
  return withWatchQuery(pathInfo(method, rawPath), query);
}

/** Kubernetes' RequestInfoFactory: a get or list with `watch` true in its query is a watch. */
function withWatchQuery(info: RequestInfo, query: URLSearchParams): RequestInfo {
  if (!info.isResourceRequest || (info.verb !== 'list' && info.verb !== 'get')) return info;
  if (parseQueryBool(query.get('watch')) !== true) return info;
  return Object.freeze({ ...info, verb: 'watch' });
}

/**
 * The request info of a method and path, before the query's `watch`; frozen.
 * The segments are cut in one pass and read by index: `split`, `filter` and a `slice` per prefix
 * made six arrays a request where this makes two: about 0.25 KB less garbage per GET, counting
 * what `split` and `slice` allocated for it (inprocess.mjs --profile --heap; the GET path's cuts
 * together: docs/performance.md "apiserver").
 */
function pathInfo(method: string, rawPath: string): RequestInfo {
  const path = decodeRequestPath(rawPath);
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: '',
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
    resourceKey: undefined,
  };
  // Empty segments (leading, trailing or doubled slashes) do not count.
  const segments: string[] = [];
  for (let start = 0; start < path.length; ) {
    let end = path.indexOf('/', start);
    if (end < 0) end = path.length;
    if (end > start) segments.push(path.slice(start, end));
    start = end + 1;
  }
  const prefix = segments[0];
  if (prefix !== 'api' && prefix !== 'apis') {
    info.verb = method.toLowerCase();
    return frozen(info);
  }
  info.apiPrefix = prefix;
  // The index of the first segment not yet read.
  let i = 1;
  if (prefix === 'apis') {
    if (segments.length - i < 3) {
      // /apis, /apis/<group>, /apis/<group>/<version>: discovery, not a resource
      info.verb = method.toLowerCase();
      info.parts = segments.slice(i);
      return frozen(info);
    }
    info.apiGroup = segments[i++]!;
  } else if (segments.length - i < 2) {
    info.verb = method.toLowerCase();
    info.parts = segments.slice(i);
    return frozen(info);
  }
  info.apiVersion = segments[i++]!;
  info.isResourceRequest = true;
  let verb = methodVerbs.get(method) ?? methodVerbs.get(method.toUpperCase()) ?? method.toLowerCase();
  if (segments[i] === 'watch' && segments.length - i > 1) {
    // The deprecated /watch/ path form.
    verb = 'watch';
    i++;
  }
  // Kubernetes' RequestInfoFactory: `namespaces/<ns>` names the namespace of the request; what
  // follows is the resource in it, except the namespace's own subresources (`status`, `finalize`).
  // So `/api/v1/namespaces/a` is the namespace `a` (resource namespaces, name a) in namespace `a`.
  if (segments[i] === 'namespaces' && segments.length - i > 1) {
    info.namespace = segments[i + 1]!;
    if (segments.length - i > 2 && !namespaceSubresources.has(segments[i + 2]!)) i += 2;
  }
  const parts = segments.slice(i);
  info.parts = parts;
  info.resource = parts[0] ?? '';
  info.name = parts[1] ?? '';
  info.subresource = parts[2] ?? '';
  info.resourceKey = resourceKeyInPath(path, info);
  if (parts.length === 1 || info.name === '') {
    if (verb === 'get') verb = 'list';
    else if (verb === 'delete') verb = 'deletecollection';
  }
  info.verb = verb;
  // Flat copies of the strings that Maps and Sets are searched (and filled) by: made once for a
  // GET's path (the memo keeps the info), and per request for the others, whose own work costs
  // milliseconds. A key stored as a slice would slow every later lookup by it, and hold the whole
  // path of the request that stored it.
  info.apiGroup = flatString(info.apiGroup);
  info.apiVersion = flatString(info.apiVersion);
  info.namespace = flatString(info.namespace);
  info.resource = flatString(info.resource);
  info.name = flatString(info.name);
  info.subresource = flatString(info.subresource);
  info.resourceKey = flatString(resourceKeyOf(info));
  return frozen(info);
}

/**
 * `s` as one flat string. The info's strings are cuts of the path, and V8 keeps a cut of 13
 * characters or more as a slice of it (`SlicedString`). A Map or Set lookup by a slice compares
 * it with the stored key through a call into V8's runtime (`Runtime_StringEqual`): 33 ns a
 * lookup against 8.5 for a flat string (microbenchmark, load 3), and a GET looks its info's
 * strings up several times (served resources, the routes' scopes, the metrics series, the
 * authorizer's groups, the storage keys by name; `Runtime_StringEqual` under
 * `FindOrderedHashMapEntry` in perf-native.mjs --callers; docs/performance.md "apiserver",
 * sixth round). V8 keeps a property name flat (internalized), so the name of an object's only
 * property is that copy.
 */
function flatString(s: string): string {
  return s.length < 13 ? s : Object.keys({ [s]: 0 })[0]!;
}

function frozen(info: RequestInfo): RequestInfo {
  Object.freeze(info.parts);
  return Object.freeze(info);
}

/** `group/version/resource` of a resource request: the one its info holds, else joined. */
export function resourceKeyOf(info: RequestInfo): string {
  return info.resourceKey ?? `${info.apiGroup}/${info.apiVersion}/${info.resource}`;
}

/** `group/version/resource`: cut from the path where it stands there whole, else joined (the same string). */
function resourceKeyInPath(path: string, info: RequestInfo): string {
  const { apiGroup: group, apiVersion: version, resource } = info;
  // Where the key starts in the path, and the slash before the version.
  let at = 4;
  let slash = 4;
  if (info.apiPrefix === 'apis') {
    at = 6;
    slash = 6 + group.length;
    if (!path.startsWith('/apis/') || !path.startsWith(group, at)) return resourceKeyOf(info);
  } else if (!path.startsWith('/api/')) return resourceKeyOf(info);
  const resourceAt = slash + version.length + 2;
  if (path.charCodeAt(slash) === 47 && path.startsWith(version, slash + 1) && path.charCodeAt(resourceAt - 1) === 47 && path.startsWith(resource, resourceAt)) {
    return path.slice(at, resourceAt + resource.length);
  }
  return resourceKeyOf(info);
}

/** Verbs that change state: they count against the mutating in-flight limit. */
export function isMutatingVerb(verb: string): boolean {
  return verb === 'create' || verb === 'update' || verb === 'patch' || verb === 'delete' || verb === 'deletecollection';
}
