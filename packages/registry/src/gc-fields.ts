import type { ApiObject } from '@plat/api-model';

/**
 * Kubernetes' IsOnlyMutatingGCFields (pkg/registry/rbac): whether an update changes nothing but
 * ownerReferences and finalizers (what the garbage collector and storage migration write), so
 * that admission checks about the object's content can let it through. managedFields and
 * resourceVersion do not count either, nor apiVersion and kind.
 */
export function onlyGcFieldsChanged(next: ApiObject, old: ApiObject): boolean {
  const strip = (o: ApiObject) => {
    const { ownerReferences: _o, finalizers: _f, managedFields: _m, resourceVersion: _r, selfLink: _s, ...meta } = o.metadata ?? {};
    // Kubernetes compares internal objects, which carry no apiVersion: an update made in another
    // version or group name than the stored object's is compared by content alone.
    const { apiVersion: _a, kind: _k, ...content } = o;
    return canonicalJson({ ...content, metadata: meta });
  };
  return strip(next) === strip(old);
}

/** JSON with object keys sorted at every level, so equal objects give equal text. */
function canonicalJson(value: unknown): string {
  // An int64 beyond 2^53 is a bigint; as text it compares the same (a typed field holds one type).
  return JSON.stringify(value, (_k, v: unknown) =>
    typeof v === 'bigint'
      ? v.toString()
      : v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(Object.keys(v as object).sort().map((k) => [k, (v as Record<string, unknown>)[k]]))
        : v,
  );
}
