/**
 * What a request is about, derived from its method and path the way Kubernetes'
 * RequestInfoFactory does: resource requests under /api and /apis get a verb
 * (get, list, watch, create, update, patch, delete, deletecollection) and a resource;
 * everything else is a non-resource request whose verb is the lower-case HTTP method.
 */
export interface RequestInfo {
  isResourceRequest: boolean;
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
  parts: string[];
}

const methodVerbs: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

function truthy(value: string | null): boolean {
  // Kubernetes parses the watch parameter as a bool: "true", "1", "t", "True"...
  return value !== null && ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value);
}

export function requestInfoFor(method: string, pathname: string, query: URLSearchParams): RequestInfo {
  const info: RequestInfo = {
    isResourceRequest: false,
    path: pathname,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
  // Empty segments (leading, trailing or doubled slashes) do not count.
  const segments = pathname.split('/').filter((s) => s !== '');
  const prefix = segments[0];
  if (prefix !== 'api' && prefix !== 'apis') return info;
  info.apiPrefix = prefix;
  let parts = segments.slice(1);
  if (prefix === 'apis') {
    if (parts.length < 3) {
      // /apis, /apis/<group>, /apis/<group>/<version>: discovery, not a resource
      info.parts = parts;
      return info;
    }
    info.apiGroup = parts[0]!;
    parts = parts.slice(1);
  } else if (parts.length < 2) {
    info.parts = parts;
    return info;
  }
  info.apiVersion = parts[0]!;
  parts = parts.slice(1);
  info.isResourceRequest = true;
  let verb = methodVerbs[method.toUpperCase()] ?? method.toLowerCase();
  if (parts[0] === 'watch' && parts.length > 1) {
    // The deprecated /watch/ path form.
    verb = 'watch';
    parts = parts.slice(1);
  }
  if (parts[0] === 'namespaces' && parts.length > 2) {
    info.namespace = parts[1]!;
    parts = parts.slice(2);
  }
  info.parts = parts;
  info.resource = parts[0] ?? '';
  info.name = parts[1] ?? '';
  info.subresource = parts[2] ?? '';
  if (parts.length === 1 || info.name === '') {
    if (verb === 'get') verb = 'list';
    else if (verb === 'delete') verb = 'deletecollection';
  }
  if ((verb === 'list' || verb === 'get') && truthy(query.get('watch'))) {
    verb = 'watch';
  }
  info.verb = verb;
  return info;
}

/** Verbs that change state: they count against the mutating in-flight limit. */
export function isMutatingVerb(verb: string): boolean {
  return verb === 'create' || verb === 'update' || verb === 'patch' || verb === 'delete' || verb === 'deletecollection';
}
