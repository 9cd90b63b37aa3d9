import { isInt64 } from '@plat/api-model';
import type { OpenApiSchema } from './openapi/types.js';

/** Resolves `#/definitions/<name>` references among a set of OpenAPI v2 definitions. */
export class SchemaSet {
  constructor(readonly definitions: Record<string, OpenApiSchema>) {}

  resolve(schema: OpenApiSchema | undefined): OpenApiSchema | undefined {
    let s = schema;
    for (let hops = 0; s && hops < 16; hops++) {
      if (s.$ref) {
        s = this.definitions[s.$ref.replace('#/definitions/', '')];
        continue;
      }
      if (s.allOf && s.allOf.length === 1 && !s.type) {
        s = s.allOf[0];
        continue;
      }
      return s;
    }
    return s;
  }

  get(name: string): OpenApiSchema | undefined {
    return this.definitions[name];
  }
}

export interface DecodeProblems {
  /** Fields the schema does not know; they are removed from the object. */
  unknown: string[];
  /** Values of the wrong JSON type (Kubernetes' typed decoding fails on them: 400). */
  typeErrors: string[];
}

function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'number' || typeof v === 'bigint') return 'number';
  return typeof v;
}

const int32Min = -(2 ** 31);
const int32Max = 2 ** 31 - 1;

/** Whether a decoded number fits the Go integer type of the schema (int64 unless int32). */
function fitsInteger(v: number | bigint, format: string | undefined): boolean {
  if (typeof v === 'bigint') return format !== 'int32' && isInt64(v);
  if (!Number.isSafeInteger(v)) return false;
  return format !== 'int32' || (v >= int32Min && v <= int32Max);
}

/**
 * Walks a decoded object against its schema the way Kubernetes' typed decoding does: unknown
 * fields are dropped (and reported), null fields are dropped, wrong types are reported.
 */
export function pruneToSchema(value: Record<string, unknown>, schema: OpenApiSchema, set: SchemaSet): DecodeProblems {
  const problems: DecodeProblems = { unknown: [], typeErrors: [] };
  walkObject(value, schema, set, '', problems);
  return problems;
}

function walkObject(
  obj: Record<string, unknown>,
  schema: OpenApiSchema,
  set: SchemaSet,
  path: string,
  problems: DecodeProblems,
): void {
  const props = schema.properties;
  const additional = schema.additionalProperties;
  // A custom resource's schema keeps what it does not name below this marker (structural schemas).
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  for (const key of Object.keys(obj)) {
    const childPath = path ? `${path}.${key}` : key;
    const v = obj[key];
    if (v === null) {
      delete obj[key];
      continue;
    }
    let child: OpenApiSchema | undefined;
    if (props && Object.prototype.hasOwnProperty.call(props, key)) child = props[key];
    else if (additional && typeof additional === 'object') child = additional;
    else if (!props && (additional === undefined || additional === true)) continue; // free-form object (FieldsV1)
    if (!child) {
      if (preserve) continue;
      problems.unknown.push(childPath);
      delete obj[key];
      continue;
    }
    walkValue(obj, key, child, set, childPath, problems);
  }
}

function walkValue(
  holder: Record<string, unknown> | unknown[],
  key: string | number,
  rawSchema: OpenApiSchema,
  set: SchemaSet,
  path: string,
  problems: DecodeProblems,
): void {
  const schema = set.resolve(rawSchema);
  if (!schema) return;
  const v = (holder as Record<string | number, unknown>)[key];
  const t = jsonType(v);
  const want = schema.type;
  const mismatch = (expected: string) => problems.typeErrors.push(`cannot unmarshal ${t} into field ${path} of type ${expected}`);
  switch (want) {
    case 'object':
      if (t !== 'object') return void mismatch('object');
      walkObject(v as Record<string, unknown>, schema, set, path, problems);
      return;
    case 'array': {
      if (t !== 'array') return void mismatch('array');
      const arr = v as unknown[];
      if (schema.items) arr.forEach((_, i) => walkValue(arr, i, schema.items!, set, `${path}[${i}]`, problems));
      return;
    }
    case 'string':
      if (t !== 'string') mismatch('string');
      return;
    case 'boolean':
      if (t !== 'boolean') mismatch('bool');
      return;
    case 'integer':
      if (t !== 'number') return void mismatch(schema.format ?? 'integer');
      // Go's typed decoding names the literal when a number does not fit the integer type.
      if (!fitsInteger(v as number | bigint, schema.format)) {
        problems.typeErrors.push(`cannot unmarshal number ${String(v)} into field ${path} of type ${schema.format ?? 'int64'}`);
      }
      return;
    case 'number':
      if (t !== 'number') mismatch('number');
      return;
    default:
      return;
  }
}
