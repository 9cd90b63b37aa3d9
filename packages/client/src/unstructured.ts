import { ClientError } from './client-error.js';

/** An object read from an input: any JSON object, typed where kubectl's unstructured reader looks. */
export type KubeObject = Record<string, unknown> & {
  apiVersion?: string;
  kind?: string;
  metadata?: Record<string, unknown> & { name?: string; namespace?: string };
};

/** A decoded JSON value's kind in Go's words (`json: cannot unmarshal array into ...`). */
export function goJsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'boolean') return 'bool';
  // The decoders give int64 values past 2^53 as bigint.
  if (typeof v === 'bigint') return 'number';
  return typeof v;
}

/**
 * The kind of an unstructured object as its GroupVersionKind reads it: the `kind` string, none
 * when it is not a string, or when `apiVersion` does not parse as a group/version.
 */
function kindOf(obj: Record<string, unknown>): string {
  if (typeof obj.apiVersion === 'string' && obj.apiVersion.split('/').length > 2) return '';
  return typeof obj.kind === 'string' ? obj.kind : '';
}

/** The objects of one document, and the error of the List items that could not be typed. */
export interface UnstructuredDocument {
  readonly objects: KubeObject[];
  /** kubectl's aggregate of the item errors: reported after the others were visited. */
  readonly itemErrors?: AggregateError;
}

/**
 * A JSON value decoded as kubectl's UnstructuredJSONScheme decodes it (apimachinery's
 * unstructured.UnstructuredJSONScheme): anything that is not an object, or has no kind, fails
 * with the library's text; `raw` is the document as that text quotes it. An object with `items`
 * is a list: its items must be objects, and those without kind and apiVersion take them from the
 * list (`PodList` items become `Pod`).
 */
export function decodeUnstructuredValue(value: unknown, raw: string): { object: KubeObject; items?: KubeObject[] } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ClientError('DecodeFailed', `json: cannot unmarshal ${goJsonKind(value)} into Go value of type unstructured.detector`);
  }
  const object = value as KubeObject;
  const items = 'items' in object ? listItems(object) : undefined;
  if (!kindOf(object)) throw missingKind(raw);
  return { object, items };
}

/**
 * One document of an input, decoded (decodeUnstructuredValue) and flattened as kubectl's
 * builder flattens it: a List comes back as its items; an item that is a list itself fails the
 * whole List (FlattenFailed); an item without kind or apiVersion is left out with an error.
 */
export function decodeUnstructured(value: unknown, raw: string): UnstructuredDocument {
  const { object, items } = decodeUnstructuredValue(value, raw);
  if (!items) return { objects: [object] };
  const objects: KubeObject[] = [];
  const errors: ClientError[] = [];
  for (const item of items) {
    if (Array.isArray(item.items)) {
      throw new ClientError('FlattenFailed', '*unstructured.Unstructured is not a list: no Items field in this object');
    }
    const missing = !kindOf(item)
      ? `Object 'Kind' is missing in 'object has no kind field '`
      : !apiVersionOf(item)
        ? `Object 'apiVersion' is missing in 'object has no apiVersion field'`
        : '';
    if (missing) errors.push(new ClientError('DecodeFailed', `unable to get type info from the object "*unstructured.Unstructured": ${missing}`));
    else objects.push(item);
  }
  return { objects, itemErrors: errors.length ? aggregate(errors) : undefined };
}

/** An AggregateError whose message is utilerrors.Aggregate's (`[a, b]`, duplicates once). */
export function aggregate(errors: Error[]): AggregateError {
  return new AggregateError(errors, aggregateMessage(errors));
}

function aggregateMessage(errors: Error[]): string {
  if (errors.length === 1) return errors[0].message;
  const seen = new Set<string>();
  const visit = (list: Error[]) => {
    for (const e of list) {
      if (e instanceof AggregateError) for (const inner of e.errors as Error[]) seen.add(inner.message);
      else seen.add(e.message);
    }
  };
  visit(errors);
  const all = [...seen];
  return all.length === 1 ? all[0] : `[${all.join(', ')}]`;
}

function missingKind(raw: string): ClientError {
  return new ClientError('DecodeFailed', `Object 'Kind' is missing in '${raw}'`);
}

function apiVersionOf(obj: Record<string, unknown>): string {
  if (typeof obj.apiVersion !== 'string') return '';
  const slash = obj.apiVersion.indexOf('/');
  return slash < 0 ? obj.apiVersion : obj.apiVersion.slice(slash + 1);
}

/** decodeToList: the items of a list, those without kind and apiVersion taking the list's. */
function listItems(list: KubeObject): KubeObject[] {
  const items = list.items;
  if (items !== null && !Array.isArray(items)) {
    throw new ClientError('DecodeFailed', `json: cannot unmarshal ${goJsonKind(items)} into Go struct field decodeList.items of type []json.RawMessage`);
  }
  const listKind = kindOf(list);
  const itemKind = listKind.endsWith('List') ? listKind.slice(0, -'List'.length) : listKind;
  return ((items ?? []) as unknown[]).map((item) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      throw new ClientError('DecodeFailed', `json: cannot unmarshal ${goJsonKind(item)} into Go value of type map[string]interface {}`);
    }
    const o = item as KubeObject;
    return o.kind === undefined && o.apiVersion === undefined ? { ...o, kind: itemKind, apiVersion: list.apiVersion } : o;
  });
}
