import { encodeJson, fieldError, isInt64, newBadRequest, type FieldError } from '@plat/api-model';
import type { Preconditions } from '@plat/storage';
import type { RequestContext } from '../context.js';
import { contentTypeOf, decodeBody, readBody } from '../request-body.js';
import { dryRunErrors, invalidOptions, parseInteger } from './options.js';
import { parseQueryBool } from '../query-bool.js';
import type { ResourceScope } from './scope.js';

export interface ParsedDeleteOptions {
  dryRun: boolean;
  /** Unsafe deletion of an object the store cannot read; needs its own permission. */
  ignoreStoreReadError?: boolean;
  gracePeriodSeconds?: number;
  preconditions?: Preconditions;
  propagationPolicy?: string;
}

const propagationPolicies = ['Foreground', 'Background', 'Orphan'];

function asStringArray(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v.map(String);
  return [String(v)];
}

/**
 * DeleteOptions come from the body when there is one, else from the query, as Kubernetes'
 * delete handlers read them; Kubernetes' ValidateDeleteOptions rules give 422.
 */
export async function parseDeleteOptions(scope: ResourceScope, ctx: RequestContext): Promise<ParsedDeleteOptions> {
  const body = await readBody(ctx, scope.maxBodyBytes);
  let dryRun: string[];
  let gracePeriodSeconds: number | undefined;
  let propagationPolicy: string | undefined;
  let orphanDependents: boolean | undefined;
  let preconditions: Preconditions | undefined;
  let ignoreStoreReadError: boolean | undefined;
  if (body.length > 0 && body.toString('utf8').trim() !== '') {
    const mediaType = contentTypeOf(ctx) || 'application/json';
    const { value } = decodeBody(body, mediaType, false);
    ctx.audit?.logRequestObject(value);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw newBadRequest('the body of the request must be a DeleteOptions object');
    }
    const o = value as Record<string, unknown>;
    if (o['kind'] !== undefined && o['kind'] !== 'DeleteOptions') {
      throw newBadRequest(`decoded object cannot be converted to DeleteOptions: kind ${encodeJson(o['kind'])}`);
    }
    dryRun = asStringArray(o['dryRun']);
    if (o['gracePeriodSeconds'] !== undefined && o['gracePeriodSeconds'] !== null) {
      const grace = o['gracePeriodSeconds'];
      // An int64 beyond 2^53 decodes as bigint; as seconds it only needs its sign and size.
      if (typeof grace === 'bigint' && isInt64(grace)) gracePeriodSeconds = Number(grace);
      else if (!Number.isSafeInteger(grace)) throw newBadRequest('gracePeriodSeconds must be an integer');
      else gracePeriodSeconds = grace as number;
    }
    if (typeof o['propagationPolicy'] === 'string') propagationPolicy = o['propagationPolicy'];
    if (typeof o['orphanDependents'] === 'boolean') orphanDependents = o['orphanDependents'];
    const ignore = o['ignoreStoreReadErrorWithClusterBreakingPotential'];
    if (typeof ignore === 'boolean') ignoreStoreReadError = ignore;
    const pre = o['preconditions'];
    if (pre && typeof pre === 'object') {
      const p = pre as Record<string, unknown>;
      preconditions = {};
      if (typeof p['uid'] === 'string') preconditions.uid = p['uid'];
      if (typeof p['resourceVersion'] === 'string') preconditions.resourceVersion = p['resourceVersion'];
    }
  } else {
    const q = ctx.query;
    dryRun = q.getAll('dryRun');
    gracePeriodSeconds = parseInteger(q.get('gracePeriodSeconds'), 'gracePeriodSeconds');
    propagationPolicy = q.get('propagationPolicy') ?? undefined;
    orphanDependents = parseQueryBool(q.get('orphanDependents'));
    ignoreStoreReadError = parseQueryBool(q.get('ignoreStoreReadErrorWithClusterBreakingPotential'));
    const uid = q.get('preconditions.uid');
    const rv = q.get('preconditions.resourceVersion');
    if (uid || rv) preconditions = { uid: uid ?? undefined, resourceVersion: rv ?? undefined };
  }
  const errs: FieldError[] = [...dryRunErrors(dryRun)];
  if (orphanDependents !== undefined && propagationPolicy !== undefined) {
    errs.push(fieldError.invalid('propagationPolicy', propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (propagationPolicy !== undefined && !propagationPolicies.includes(propagationPolicy)) {
    errs.push(fieldError.notSupported('propagationPolicy', propagationPolicy, [...propagationPolicies, 'nil']));
  }
  if (ignoreStoreReadError) {
    // Kubernetes' ValidateDeleteOptions: the unsafe delete takes no other option.
    const alone = 'can not be set together with ignoreStoreReadErrorWithClusterBreakingPotential';
    if (dryRun.length) errs.push(fieldError.invalid('dryRun', '', alone));
    if (propagationPolicy !== undefined) errs.push(fieldError.invalid('propagationPolicy', '', alone));
    if (gracePeriodSeconds !== undefined) errs.push(fieldError.invalid('gracePeriodSeconds', '', alone));
    if (preconditions) errs.push(fieldError.invalid('preconditions', '', alone));
    if (orphanDependents !== undefined) errs.push(fieldError.invalid('orphanDependents', '', alone));
  }
  if (errs.length) throw invalidOptions('DeleteOptions', errs);
  return { dryRun: dryRun.length > 0, gracePeriodSeconds, preconditions, propagationPolicy, ignoreStoreReadError };
}
