import {
  FieldSelector,
  LabelSelector,
  SelectorError,
  fieldError,
  newBadRequest,
  type ApiObject,
  type FieldError,
} from '@plat/api-model';
import type { ResourceVersionMatch } from '@plat/storage';
import type { RequestContext } from '../context.js';
import { invalidOptions, parseInteger } from './options.js';
import { parseQueryBool } from '../query-bool.js';
import { selectableFieldNames, selectableFields, type ResourceScope } from './scope.js';

export interface ListRequestOptions {
  watch: boolean;
  labelSelector: LabelSelector;
  fieldSelector: FieldSelector;
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  allowWatchBookmarks: boolean;
  sendInitialEvents?: boolean;
  timeoutSeconds?: number;
  limit?: number;
  continue?: string;
  /** Whether an object is selected by both selectors. */
  matches(obj: ApiObject): boolean;
}

function selectorError(err: unknown): never {
  if (err instanceof SelectorError) throw newBadRequest(err.message);
  throw err;
}

/** Kubernetes' ValidateListOptions (and its watch variant): 422 Invalid, kind ListOptions. */
function validate(o: ListRequestOptions, rawMatch: string): FieldError[] {
  const errs: FieldError[] = [];
  const match = rawMatch;
  if (o.watch) {
    if (o.sendInitialEvents !== undefined) {
      if (match !== 'NotOlderThan') {
        errs.push(fieldError.forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
      }
      if (o.sendInitialEvents && !o.allowWatchBookmarks) {
        errs.push(fieldError.forbidden('allowWatchBookmarks', 'sendInitialEvents requires setting allowWatchBookmarks to true'));
      }
    }
    if (match) {
      if (o.sendInitialEvents === undefined) {
        errs.push(fieldError.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
      }
      if (match !== 'NotOlderThan') errs.push(fieldError.notSupported('resourceVersionMatch', match, ['NotOlderThan']));
      if (o.continue) errs.push(fieldError.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
    return errs;
  }
  if (match) {
    if (!o.resourceVersion) {
      errs.push(fieldError.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    }
    if (o.continue) errs.push(fieldError.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') {
      errs.push(fieldError.notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    }
    if (match === 'Exact' && o.resourceVersion === '0') {
      errs.push(fieldError.forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (o.sendInitialEvents !== undefined) {
    errs.push(fieldError.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  }
  return errs;
}

/**
 * The test of a list's selectors, chosen once per request: without a field selector (the common
 * `labelSelector=...`) it reads only the labels, and builds no selectable fields per object.
 */
function selectionOf(scope: ResourceScope, ls: LabelSelector, fs: FieldSelector): (obj: ApiObject) => boolean {
  if (fs.isEmpty()) return (obj) => ls.matches(obj.metadata?.labels);
  return (obj) => ls.matches(obj.metadata?.labels) && fs.matches(selectableFields(scope, obj));
}

/**
 * Parses the list/watch/deletecollection query. A name in the path (`.../clustertrustbundles/x`
 * with watch) becomes a `metadata.name` field selector, as Kubernetes does.
 */
export function parseListOptions(scope: ResourceScope, ctx: RequestContext, opts: { watch: boolean; name?: string }): ListRequestOptions {
  const q = ctx.query;
  let labelSelector: LabelSelector;
  let fieldSelector: FieldSelector;
  try {
    labelSelector = LabelSelector.parse(q.get('labelSelector') ?? '');
    fieldSelector = FieldSelector.parse(q.get('fieldSelector') ?? '');
    fieldSelector = fieldSelector.checkSupportedFields(selectableFieldNames(scope));
  } catch (err) {
    selectorError(err);
  }
  if (opts.name) {
    const requested = fieldSelector.requiresExactMatch('metadata.name');
    if (requested !== undefined && requested !== opts.name) {
      throw newBadRequest(`fieldSelector metadata.name=${requested} does not match name ${opts.name}`);
    }
    fieldSelector = FieldSelector.and(fieldSelector, FieldSelector.fromSet({ 'metadata.name': opts.name }));
  }
  const rawMatch = q.get('resourceVersionMatch') ?? '';
  const ls = labelSelector;
  const fs = fieldSelector;
  const o: ListRequestOptions = {
    watch: opts.watch,
    labelSelector: ls,
    fieldSelector: fs,
    resourceVersion: q.get('resourceVersion') ?? undefined,
    resourceVersionMatch: (rawMatch || undefined) as ResourceVersionMatch | undefined,
    allowWatchBookmarks: parseQueryBool(q.get('allowWatchBookmarks')) ?? false,
    sendInitialEvents: parseQueryBool(q.get('sendInitialEvents')),
    timeoutSeconds: parseInteger(q.get('timeoutSeconds'), 'timeoutSeconds'),
    limit: parseInteger(q.get('limit'), 'limit'),
    continue: q.get('continue') || undefined,
    matches: selectionOf(scope, ls, fs),
  };
  const errs = validate(o, rawMatch);
  if (errs.length) throw invalidOptions('ListOptions', errs);
  return o;
}
