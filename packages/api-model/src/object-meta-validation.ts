import { fieldError, rawValue, type FieldError } from './field-error.js';
import { FieldPath } from './field-path.js';
import { goQuote } from './go-quote.js';
import { byteLength } from './dns-validation.js';
import { isQualifiedName, validateLabels } from './label-validation.js';
import { nameIsDNSLabel, type ValidateNameFunc } from './name-validation.js';
import type { ManagedFieldsEntry, ObjectMeta, OwnerReference } from './object-meta.js';

/**
 * ObjectMeta validation as kube-apiserver runs it for built-in kinds
 * (`apimachinery/pkg/api/validation/objectmeta.go` plus the finalizer check of
 * `pkg/apis/core/validation`). Every function returns a field error list and never throws.
 */

export const fieldImmutableErrorMsg = 'field is immutable';
export const isNegativeErrorMsg = 'must be greater than or equal to 0';
export const totalAnnotationSizeLimitB = 256 * 1024;
export const fieldManagerMaxLength = 128;
export const maxSubresourceNameLength = 256;

/** Finalizers that may be written without a domain prefix. */
export const standardFinalizers: ReadonlySet<string> = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);
export const finalizerOrphanDependents = 'orphan';
export const finalizerDeleteDependents = 'foregroundDeletion';

type PathLike = FieldPath | string;
const asPath = (p: PathLike): FieldPath => (typeof p === 'string' ? FieldPath.root(p) : p);

export interface ValidateObjectMetaOptions {
  /** Whether the kind lives in a namespace (ClusterTrustBundle: false). */
  namespaced: boolean;
  /** The kind's name rule; defaults to nothing beyond what the caller checks. */
  nameFn: ValidateNameFunc;
  /** Defaults to `metadata`. */
  path?: PathLike;
}

/**
 * The name part of ObjectMeta validation: `generateName` checked as a prefix, then `name`
 * required (`name or generateName is required`) and checked by the kind's rule. Call it after
 * the name was generated, as Kubernetes does.
 */
export function validateObjectMetaName(meta: ObjectMeta | undefined, nameFn: ValidateNameFunc, path: PathLike = 'metadata'): FieldError[] {
  const p = asPath(path);
  const errs: FieldError[] = [];
  const generateName = meta?.generateName ?? '';
  const name = meta?.name ?? '';
  if (generateName.length !== 0) {
    for (const msg of nameFn(generateName, true)) errs.push(fieldError.invalid(p.child('generateName'), generateName, msg));
  }
  if (name.length === 0) {
    errs.push(fieldError.required(p.child('name'), 'name or generateName is required'));
  } else {
    for (const msg of nameFn(name, false)) errs.push(fieldError.invalid(p.child('name'), name, msg));
  }
  return errs;
}

/** Kubernetes' `ValidateObjectMeta` for a create. */
export function validateObjectMeta(meta: ObjectMeta | undefined, options: ValidateObjectMetaOptions): FieldError[] {
  const p = asPath(options.path ?? 'metadata');
  const m = meta ?? {};
  const errs = validateObjectMetaName(m, options.nameFn, p);
  const namespace = m.namespace ?? '';
  if (options.namespaced) {
    if (namespace.length === 0) errs.push(fieldError.required(p.child('namespace')));
    else for (const msg of nameIsDNSLabel(namespace, false)) errs.push(fieldError.invalid(p.child('namespace'), namespace, msg));
  } else if (namespace.length !== 0) {
    errs.push(fieldError.forbidden(p.child('namespace'), 'not allowed on this type'));
  }
  errs.push(...validateNonnegativeField(m.generation ?? 0, p.child('generation')));
  errs.push(...validateLabels(m.labels, p.child('labels')));
  errs.push(...validateAnnotations(m.annotations, p.child('annotations')));
  errs.push(...validateOwnerReferences(m.ownerReferences ?? [], p.child('ownerReferences')));
  errs.push(...validateFinalizers(m.finalizers ?? [], p.child('finalizers')));
  errs.push(...validateManagedFields(m.managedFields ?? [], p.child('managedFields')));
  (m.finalizers ?? []).forEach((f, i) => errs.push(...validateKubeFinalizerName(f, p.child('finalizers').index(i))));
  return errs;
}

/**
 * Kubernetes' `ValidateObjectMetaUpdate`. The new object must carry a resourceVersion: for an
 * unconditional update the store copies the stored one in before validating, as kube-apiserver does.
 */
export function validateObjectMetaUpdate(newMeta: ObjectMeta | undefined, oldMeta: ObjectMeta | undefined, path: PathLike = 'metadata'): FieldError[] {
  const p = asPath(path);
  const n = newMeta ?? {};
  const o = oldMeta ?? {};
  const errs: FieldError[] = [];
  if (o.deletionTimestamp) {
    errs.push(...validateNoNewFinalizers(n.finalizers ?? [], o.finalizers ?? [], p.child('finalizers')));
  }
  if (!n.resourceVersion) {
    errs.push(fieldError.invalid(p.child('resourceVersion'), n.resourceVersion ?? '', 'must be specified for an update'));
  }
  if ((n.generation ?? 0) < (o.generation ?? 0)) {
    errs.push(fieldError.invalid(p.child('generation'), n.generation ?? 0, 'must not be decremented'));
  }
  errs.push(...validateImmutableField(n.name ?? '', o.name ?? '', p.child('name')));
  errs.push(...validateImmutableField(n.namespace ?? '', o.namespace ?? '', p.child('namespace')));
  errs.push(...validateImmutableField(n.uid ?? '', o.uid ?? '', p.child('uid')));
  errs.push(...validateImmutableTime(n.creationTimestamp, o.creationTimestamp, p.child('creationTimestamp'), false));
  errs.push(...validateImmutableTime(n.deletionTimestamp, o.deletionTimestamp, p.child('deletionTimestamp'), true));
  errs.push(
    ...validateImmutableField(n.deletionGracePeriodSeconds ?? null, o.deletionGracePeriodSeconds ?? null, p.child('deletionGracePeriodSeconds')),
  );
  errs.push(...validateLabels(n.labels, p.child('labels')));
  errs.push(...validateAnnotations(n.annotations, p.child('annotations')));
  errs.push(...validateOwnerReferences(n.ownerReferences ?? [], p.child('ownerReferences')));
  errs.push(...validateManagedFields(n.managedFields ?? [], p.child('managedFields')));
  (n.finalizers ?? []).forEach((f, i) => errs.push(...validateKubeFinalizerName(f, p.child('finalizers').index(i))));
  return errs;
}

/** `field is immutable` when the values differ (deep equality, as Kubernetes' semantic DeepEqual). */
export function validateImmutableField(newValue: unknown, oldValue: unknown, path: PathLike): FieldError[] {
  return deepEqual(newValue, oldValue) ? [] : [fieldError.invalid(path, newValue, fieldImmutableErrorMsg)];
}

/** Kubernetes' `ValidateNonnegativeField`. */
export function validateNonnegativeField(value: number, path: PathLike): FieldError[] {
  return value < 0 ? [fieldError.invalid(path, value, isNegativeErrorMsg)] : [];
}

/** Kubernetes' `ValidateAnnotations`: keys are qualified names (case-insensitive), total size at most 256 KiB. */
export function validateAnnotations(annotations: Readonly<Record<string, string>> | null | undefined, path: PathLike): FieldError[] {
  const errs: FieldError[] = [];
  if (!annotations) return errs;
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(fieldError.invalid(path, k, msg));
    total += byteLength(k) + byteLength(v);
  }
  if (total > totalAnnotationSizeLimitB) errs.push(fieldError.tooLong(path, '', totalAnnotationSizeLimitB));
  return errs;
}

/** The version part of an apiVersion as Kubernetes' `FromAPIVersionAndKind` finds it ("" when malformed). */
function versionOf(apiVersion: string): string {
  if (apiVersion === '' || apiVersion === '/') return '';
  const slashes = apiVersion.split('/').length - 1;
  if (slashes === 0) return apiVersion;
  if (slashes === 1) return apiVersion.slice(apiVersion.indexOf('/') + 1);
  return '';
}

/** Kubernetes' `ValidateOwnerReferences`: required parts of each reference and at most one controller. */
export function validateOwnerReferences(refs: readonly OwnerReference[], path: PathLike): FieldError[] {
  const p = asPath(path);
  const errs: FieldError[] = [];
  let firstController = '';
  for (const ref of refs) {
    if (versionOf(ref.apiVersion ?? '') === '') errs.push(fieldError.invalid(p.child('apiVersion'), ref.apiVersion ?? '', 'version must not be empty'));
    if (!ref.kind) errs.push(fieldError.invalid(p.child('kind'), ref.kind ?? '', 'must not be empty'));
    if (!ref.name) errs.push(fieldError.invalid(p.child('name'), ref.name ?? '', 'must not be empty'));
    if (!ref.uid) errs.push(fieldError.invalid(p.child('uid'), ref.uid ?? '', 'must not be empty'));
    if (ref.controller) {
      const current = `${ref.kind}/${ref.name}`;
      if (firstController !== '') {
        errs.push(
          fieldError.invalid(
            p,
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

/** Kubernetes' `ValidateFinalizers`: qualified names, and not both `orphan` and `foregroundDeletion`. */
export function validateFinalizers(finalizers: readonly string[], path: PathLike): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of finalizers) {
    for (const msg of isQualifiedName(f)) errs.push(fieldError.invalid(path, f, msg));
  }
  if (finalizers.includes(finalizerOrphanDependents) && finalizers.includes(finalizerDeleteDependents)) {
    errs.push(
      fieldError.invalid(path, [...finalizers], `finalizer ${finalizerOrphanDependents} and ${finalizerDeleteDependents} cannot be both set`),
    );
  }
  return errs;
}

/** A finalizer without a `/` must be one of the standard names (`pkg/apis/core/validation`). */
export function validateKubeFinalizerName(finalizer: string, path: PathLike): FieldError[] {
  if (finalizer.split('/').length === 1 && !standardFinalizers.has(finalizer)) {
    return [fieldError.invalid(path, finalizer, 'name is neither a standard finalizer name nor is it fully qualified')];
  }
  return [];
}

function validateNoNewFinalizers(newFinalizers: readonly string[], oldFinalizers: readonly string[], path: FieldPath): FieldError[] {
  const old = new Set(oldFinalizers);
  const extra = [...new Set(newFinalizers.filter((f) => !old.has(f)))].sort();
  if (extra.length === 0) return [];
  const list = `[]string{${extra.map(goQuote).join(', ')}}`;
  return [fieldError.forbidden(path, `no new finalizers can be added if the object is being deleted, found new finalizers ${list}`)];
}

// Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Kubernetes' `ValidateFieldManager`: at most 128 bytes, printable characters only. */
export function validateFieldManager(fieldManager: string, path: PathLike): FieldError[] {
  const errs: FieldError[] = [];
  if (byteLength(fieldManager) > fieldManagerMaxLength) errs.push(fieldError.tooLong(path, fieldManager, fieldManagerMaxLength));
  let position = 0;
  for (const ch of fieldManager) {
    if (!printable.test(ch)) {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      errs.push(fieldError.invalid(path, fieldManager, `invalid character U+${code} (at position ${position})`));
    }
    position += Buffer.byteLength(ch, 'utf8');
  }
  return errs;
}

/** Kubernetes' `ValidateManagedFields`. */
export function validateManagedFields(entries: readonly ManagedFieldsEntry[], path: PathLike): FieldError[] {
  const p = asPath(path);
  const errs: FieldError[] = [];
  entries.forEach((entry, i) => {
    const ep = p.index(i);
    if (entry.operation !== 'Apply' && entry.operation !== 'Update') {
      errs.push(fieldError.invalid(ep.child('operation'), entry.operation ?? '', 'must be `Apply` or `Update`'));
    }
    if (entry.fieldsType && entry.fieldsType !== 'FieldsV1') {
      errs.push(fieldError.invalid(ep.child('fieldsType'), entry.fieldsType, 'must be `FieldsV1`'));
    }
    errs.push(...validateFieldManager(entry.manager ?? '', ep.child('manager')));
    if (byteLength(entry.subresource ?? '') > maxSubresourceNameLength) {
      errs.push(fieldError.tooLong(ep.child('subresource'), entry.subresource, maxSubresourceNameLength));
    }
  });
  return errs;
}

/**
 * Timestamps compare by instant and print as Go prints a `metav1.Time` (`2006-01-02 15:04:05 +0000 UTC`);
 * an unset creationTimestamp prints as Go's zero time, an unset deletionTimestamp as null.
 */
function validateImmutableTime(newValue: string | null | undefined, oldValue: string | null | undefined, path: FieldPath, pointer: boolean): FieldError[] {
  const instant = (v: string | null | undefined) => (v ? Date.parse(v) : Number.NaN);
  const a = instant(newValue);
  const b = instant(oldValue);
  const same = (Number.isNaN(a) && Number.isNaN(b) && (newValue ?? '') === (oldValue ?? '')) || a === b;
  if (same) return [];
  let printed: unknown;
  if (!newValue) printed = pointer ? null : rawValue('0001-01-01 00:00:00 +0000 UTC');
  else printed = Number.isNaN(a) ? newValue : rawValue(goTimeString(a));
  return [fieldError.invalid(path, printed, fieldImmutableErrorMsg)];
}

function goTimeString(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000 UTC`;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b as object, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

