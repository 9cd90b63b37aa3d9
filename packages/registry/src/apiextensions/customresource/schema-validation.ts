import { FieldPath, fieldError, type FieldError } from '@plat/api-model';
import { maxSchemaDepth } from '../customresourcedefinition/crd-validation.js';
import type { JsonSchemaProps } from '../customresourcedefinition/crd-types.js';

/** The JSON type name kube-openapi's validator reports for a value. */
function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'bigint') return 'integer';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function matchesType(v: unknown, type: string): boolean {
  const t = typeName(v);
  return t === type || (type === 'number' && t === 'integer');
}

const asNumber = (v: unknown) => (typeof v === 'bigint' ? Number(v) : (v as number));

/**
 * A custom resource against its version's openAPIV3Schema, with the errors kube-apiserver gives
 * (k8s.io/kube-openapi's validator, converted by apiextensions' validation.ConvertErrors):
 * `spec.x: Invalid value: "a": spec.x in body must be of type integer: "string"`,
 * `spec.y: Required value`, `spec.z: Unsupported value: "c": supported values: "a", "b"`,
 * `spec.n: Invalid value: 0: spec.n in body should be greater than or equal to 1`.
 * `apiVersion`, `kind` and `metadata` are the generic code's.
 */
export function validateAgainstSchema(obj: Record<string, unknown>, schema: JsonSchemaProps): FieldError[] {
  const errs: FieldError[] = [];
  const root: JsonSchemaProps = { ...schema, properties: { ...schema.properties } };
  delete root.properties!['metadata'];
  delete root.properties!['apiVersion'];
  delete root.properties!['kind'];
  const { metadata: _m, apiVersion: _a, kind: _k, ...rest } = obj;
  validateValue(rest, root, undefined, 0, errs);
  return errs;
}

function validateValue(v: unknown, s: JsonSchemaProps, path: FieldPath | undefined, depth: number, errs: FieldError[]): void {
  if (depth > maxSchemaDepth) return;
  const at = path ?? FieldPath.empty();
  const name = path?.toString() || '<root>';
  if (v === null) {
    if (s.nullable) return;
    if (s.type) errs.push(fieldError.invalid(at, 'null', `${name} in body must be of type ${s.type}: "null"`));
    return;
  }
  if (s['x-kubernetes-int-or-string']) {
    if (typeName(v) !== 'integer' && typeName(v) !== 'string') errs.push(fieldError.invalid(at, v, `${name} in body must be of type integer,string: ${JSON.stringify(typeName(v))}`));
  } else if (s.type && !matchesType(v, s.type)) {
    errs.push(fieldError.invalid(at, v, `${name} in body must be of type ${s.type}: ${JSON.stringify(typeName(v))}`));
    return;
  }
  if (Array.isArray(s.enum) && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
    errs.push(fieldError.notSupported(at, v, s.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)))));
  }
  if (typeof v === 'number' || typeof v === 'bigint') {
    const n = asNumber(v);
    if (typeof s['minimum'] === 'number') {
      const min = s['minimum'];
      if (s['exclusiveMinimum'] === true ? n <= min : n < min) {
        errs.push(fieldError.invalid(at, v, `${name} in body should be greater than ${s['exclusiveMinimum'] === true ? '' : 'or equal to '}${min}`));
      }
    }
    if (typeof s['maximum'] === 'number') {
      const max = s['maximum'];
      if (s['exclusiveMaximum'] === true ? n >= max : n > max) {
        errs.push(fieldError.invalid(at, v, `${name} in body should be less than ${s['exclusiveMaximum'] === true ? '' : 'or equal to '}${max}`));
      }
    }
  }
  if (Array.isArray(v)) {
    const items = s.items;
    if (items && !Array.isArray(items)) v.forEach((item, i) => validateValue(item, items, (path ?? FieldPath.empty()).index(i), depth + 1, errs));
    return;
  }
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    for (const req of s.required ?? []) {
      if (!Object.prototype.hasOwnProperty.call(o, req)) errs.push(fieldError.required(path ? path.child(req) : FieldPath.root(req)));
    }
    for (const [key, child] of Object.entries(o)) {
      const childPath = path ? path.child(key) : FieldPath.root(key);
      const prop = s.properties && Object.prototype.hasOwnProperty.call(s.properties, key) ? s.properties[key] : undefined;
      if (prop) validateValue(child, prop, childPath, depth + 1, errs);
      else if (s.additionalProperties && typeof s.additionalProperties === 'object') validateValue(child, s.additionalProperties, childPath, depth + 1, errs);
    }
  }
}
