import { encodeJson } from '@plat/api-model';
import { isJsonObject, type JsonObject } from '../json-value.js';
import type { FieldSet } from './fieldpath.js';
import type { ApplyType } from './schema.js';
import { TypedContext, compare, toFieldSet } from './typed.js';

/**
 * kubectl's client-side apply annotation, kept in step with server-side apply the way
 * kube-apiserver does for the `kubectl` field manager (lastAppliedManager, lastAppliedUpdater),
 * so that an object can move from `kubectl apply` to `kubectl apply --server-side` and back.
 */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** The field manager kube-apiserver does this for: kubectl's server-side apply. */
export const KUBECTL_MANAGER = 'kubectl';

function lastAppliedOf(obj: unknown): string | undefined {
  if (!isJsonObject(obj) || !isJsonObject(obj.metadata) || !isJsonObject(obj.metadata.annotations)) return undefined;
  const v = obj.metadata.annotations[LAST_APPLIED_ANNOTATION];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * Fields a kubectl server-side apply may take without a conflict: those the client-side apply
 * annotation lists with the value the object still has. Undefined when there is no usable
 * annotation.
 */
export function allowedConflictsFromLastApplied(live: JsonObject, type: ApplyType): FieldSet | undefined {
  const text = lastAppliedOf(live);
  if (!text) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isJsonObject(parsed)) return undefined;
  const strict = new TypedContext(true);
  const set = toFieldSet(parsed, type, strict);
  if (strict.errors.length) return undefined;
  const changed = compare(parsed, live, type, new TypedContext(false)).modified;
  return set.difference(changed);
}

/** Go's encoding/json text of a decoded value: sorted keys, `<`, `>`, `&` escaped. */
function goJson(v: unknown): string {
  const text = encodeJson(sortKeys(v));
  return text.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isJsonObject(v)) return v;
  const out: JsonObject = {};
  for (const k of Object.keys(v).sort()) out[k] = sortKeys(v[k]);
  return out;
}

/**
 * After a kubectl server-side apply, an object that carries the client-side apply annotation
 * gets it rewritten to the applied configuration (without the annotation itself), as
 * kube-apiserver does; any other object is returned as it is.
 */
export function syncLastApplied(result: JsonObject, applied: JsonObject, manager: string): JsonObject {
  if (manager !== KUBECTL_MANAGER || !lastAppliedOf(result)) return result;
  const config: JsonObject = { ...applied };
  if (isJsonObject(applied.metadata) && isJsonObject(applied.metadata.annotations)) {
    const annotations = { ...applied.metadata.annotations };
    delete annotations[LAST_APPLIED_ANNOTATION];
    config.metadata = { ...applied.metadata, annotations };
  }
  const metadata = result.metadata as JsonObject;
  return {
    ...result,
    metadata: {
      ...metadata,
      annotations: { ...(metadata.annotations as JsonObject), [LAST_APPLIED_ANNOTATION]: `${goJson(config)}\n` },
    },
  };
}
