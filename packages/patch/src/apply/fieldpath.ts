import { encodeJson, goQuote } from '@plat/api-model';
import { isJsonObject } from '../json-value.js';

/**
 * Field paths and field sets, as sigs.k8s.io/structured-merge-diff `fieldpath` models them: a
 * path is a list of elements, each a struct field or map key (`f:`), a list item named by its
 * key fields (`k:`), a set item named by its value (`v:`) or a list position (`i:`).
 */
export type PathElement =
  | { readonly field: string }
  | { readonly key: readonly (readonly [string, unknown])[] }
  | { readonly value: unknown }
  | { readonly index: number };

export type FieldPath = readonly PathElement[];

/** The FieldsV1 spelling of one element: `f:name`, `k:{"name":"a"}`, `v:"x"`, `i:3`. */
export function encodePathElement(pe: PathElement): string {
  if ('field' in pe) return `f:${pe.field}`;
  if ('key' in pe) {
    const parts = pe.key.map(([name, v]) => `${JSON.stringify(name)}:${canonicalJson(v)}`);
    return `k:{${parts.join(',')}}`;
  }
  if ('value' in pe) return `v:${canonicalJson(pe.value)}`;
  return `i:${pe.index}`;
}

/** A FieldsV1 tree or key that is not well formed; the message is structured-merge-diff's text. */
export class FieldsV1DecodeError extends Error {
  readonly code = 'ERR_FIELDS_V1_DECODE';
  constructor(message: string) {
    super(message);
    this.name = 'FieldsV1DecodeError';
  }
}

/** Parses one FieldsV1 key; throws a FieldsV1DecodeError naming the bad key. */
export function decodePathElement(s: string): PathElement {
  const colon = s.indexOf(':');
  if (colon !== 1) throw new FieldsV1DecodeError(`unknown path element type: ${goQuote(s)}`);
  const body = s.slice(2);
  switch (s[0]) {
    case 'f':
      return { field: body };
    case 'k': {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        throw new FieldsV1DecodeError(`invalid key in path element ${goQuote(s)}`);
      }
      if (!isJsonObject(parsed) || Object.keys(parsed).length === 0) {
        throw new FieldsV1DecodeError(`invalid key in path element ${goQuote(s)}`);
      }
      return { key: keyOf(parsed) };
    }
    case 'v':
      try {
        return { value: JSON.parse(body) };
      } catch {
        throw new FieldsV1DecodeError(`invalid value in path element ${goQuote(s)}`);
      }
    case 'i': {
      if (!/^(0|[1-9][0-9]*)$/.test(body)) throw new FieldsV1DecodeError(`invalid index in path element ${goQuote(s)}`);
      return { index: Number(body) };
    }
    default:
      throw new FieldsV1DecodeError(`unknown path element type: ${goQuote(s)}`);
  }
}

/** A list item's key: its key fields sorted by name, as Kubernetes orders them. */
export function keyOf(fields: Readonly<Record<string, unknown>>): readonly (readonly [string, unknown])[] {
  return Object.keys(fields)
    .sort(compareStrings)
    .map((k) => [k, fields[k]] as const);
}

/** JSON with object members sorted, so equal values spell the same. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isJsonObject(v)) {
    const keys = Object.keys(v).sort(compareStrings);
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(',')}}`;
  }
  return v === undefined ? 'null' : encodeJson(v);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function typeRank(v: unknown): number {
  if (typeof v === 'number' || typeof v === 'bigint') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (isJsonObject(v)) return 4;
  return 5; // null
}

/** The total order of values structured-merge-diff sorts set items by: numbers, strings, bools, lists, maps, null. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0:
      // Numbers and int64s past 2^53 (bigint) compare with each other without conversion.
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1:
      return compareStrings(a as string, b as string);
    case 2:
      return Number(a) - Number(b);
    case 3: {
      const la = a as unknown[];
      const lb = b as unknown[];
      for (let i = 0; i < Math.min(la.length, lb.length); i++) {
        const c = compareValues(la[i], lb[i]);
        if (c) return c;
      }
      return la.length - lb.length;
    }
    case 4:
      return compareKeys(keyOf(a as Record<string, unknown>), keyOf(b as Record<string, unknown>));
    default:
      return 0;
  }
}

function compareKeys(a: readonly (readonly [string, unknown])[], b: readonly (readonly [string, unknown])[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareStrings(a[i][0], b[i][0]) || compareValues(a[i][1], b[i][1]);
    if (c) return c;
  }
  return a.length - b.length;
}

function elementRank(pe: PathElement): number {
  if ('field' in pe) return 0;
  if ('key' in pe) return 1;
  if ('value' in pe) return 2;
  return 3;
}

/** Kubernetes' element order: fields, then keyed items, then set values, then indexes. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  const ra = elementRank(a);
  const rb = elementRank(b);
  if (ra !== rb) return ra - rb;
  if ('field' in a) return compareStrings(a.field, (b as { field: string }).field);
  if ('key' in a) return compareKeys(a.key, (b as { key: readonly (readonly [string, unknown])[] }).key);
  if ('value' in a) return compareValues(a.value, (b as { value: unknown }).value);
  return a.index - (b as { index: number }).index;
}

/** A value as structured-merge-diff prints it inside a path: strings quoted, others as JSON. */
function valueText(v: unknown): string {
  return typeof v === 'string' ? goQuote(v) : canonicalJson(v);
}

/** `.spec.containers[name="nginx"].image`, as Kubernetes prints a path in conflicts and errors. */
export function pathString(path: FieldPath): string {
  let out = '';
  for (const pe of path) {
    if ('field' in pe) out += `.${pe.field}`;
    else if ('key' in pe) out += `[${pe.key.map(([k, v]) => `${k}=${valueText(v)}`).join(',')}]`;
    else if ('value' in pe) out += `[=${valueText(pe.value)}]`;
    else out += `[${pe.index}]`;
  }
  return out;
}

export interface Child {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

/**
 * A set of field paths stored as a trie: at each level the elements that are themselves in the
 * set (members) and the elements below which deeper paths are (children). Immutable from the
 * outside: every operation returns a new set.
 */
export class FieldSet {
  private readonly members = new Map<string, PathElement>();
  private readonly children = new Map<string, Child>();

  static of(...paths: FieldPath[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insertMutable(p);
    return s;
  }

  /** Adds a path in place; only for sets under construction by this module's walkers. */
  insertMutable(path: FieldPath): void {
    if (path.length === 0) return;
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) node = node.childMutable(path[i]);
    const last = path[path.length - 1];
    node.members.set(encodePathElement(last), last);
  }

  private childMutable(pe: PathElement): FieldSet {
    const k = encodePathElement(pe);
    let c = this.children.get(k);
    if (!c) {
      c = { pe, set: new FieldSet() };
      this.children.set(k, c);
    }
    return c.set;
  }

  isEmpty(): boolean {
    if (this.members.size) return false;
    for (const c of this.children.values()) if (!c.set.isEmpty()) return false;
    return true;
  }

  has(path: FieldPath): boolean {
    if (path.length === 0) return false;
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    let node: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && node; i++) node = node.children.get(encodePathElement(path[i]))?.set;
    return !!node && node.members.has(encodePathElement(path[path.length - 1]));
  }

  hasMember(pe: PathElement): boolean {
    return this.members.has(encodePathElement(pe));
  }

  /** The paths below `pe`, with `pe` taken off (structured-merge-diff `WithPrefix`). */
  withPrefix(pe: PathElement): FieldSet | undefined {
    return this.children.get(encodePathElement(pe))?.set;
  }

  /** Whether some path starts with `pe` and goes deeper. */
  hasChildrenUnder(pe: PathElement): boolean {
    const c = this.children.get(encodePathElement(pe));
    return !!c && !c.set.isEmpty();
  }

  union(other: FieldSet): FieldSet {
    const out = this.copy();
    out.addAll(other);
    return out;
  }

  private addAll(other: FieldSet): void {
    for (const [k, pe] of other.members) this.members.set(k, pe);
    for (const [k, c] of other.children) {
      const mine = this.children.get(k);
      if (mine) mine.set.addAll(c.set);
      else this.children.set(k, { pe: c.pe, set: c.set.copy() });
    }
  }

  copy(): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) out.members.set(k, pe);
    for (const [k, c] of this.children) out.children.set(k, { pe: c.pe, set: c.set.copy() });
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (other.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const o = other.children.get(k);
      if (!o) continue;
      const sub = c.set.intersection(o.set);
      if (!sub.isEmpty()) out.children.set(k, { pe: c.pe, set: sub });
    }
    return out;
  }

  /** The paths of this set that are not in `other` (exact paths; deeper paths stay). */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (!other.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const o = other.children.get(k);
      const sub = o ? c.set.difference(o.set) : c.set.copy();
      if (!sub.isEmpty()) out.children.set(k, { pe: c.pe, set: sub });
    }
    return out;
  }

  /** Like `difference`, and also drops every path below a member of `other`. */
  recursiveDifference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (!other.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      if (other.members.has(k)) continue;
      const o = other.children.get(k);
      const sub = o ? c.set.recursiveDifference(o.set) : c.set.copy();
      if (!sub.isEmpty()) out.children.set(k, { pe: c.pe, set: sub });
    }
    return out;
  }

  equals(other: FieldSet): boolean {
    return this.difference(other).isEmpty() && other.difference(this).isEmpty();
  }

  /** Every path, in Kubernetes' iteration order: a level's members first, then its children. */
  paths(): FieldPath[] {
    const out: FieldPath[] = [];
    this.collect([], out);
    return out;
  }

  private collect(prefix: PathElement[], out: FieldPath[]): void {
    for (const pe of sortedValues(this.members)) out.push([...prefix, pe]);
    for (const c of sortedChildren(this.children)) c.set.collect([...prefix, c.pe], out);
  }

  /** Number of paths in the set. */
  size(): number {
    let n = this.members.size;
    for (const c of this.children.values()) n += c.set.size();
    return n;
  }

  /** The elements with paths below them and those paths, in no particular order. */
  childEntries(): IterableIterator<Child> {
    return this.children.values();
  }

  /** Elements at this level, members and children alike, each once, sorted. */
  topElements(): PathElement[] {
    const all = new Map<string, PathElement>(this.members);
    for (const [k, c] of this.children) all.set(k, c.pe);
    return sortedValues(all);
  }

  /** FieldsV1 as Kubernetes writes it: keys in element order, `.` first for a member with children. */
  toFieldsV1(): Record<string, unknown> {
    return this.emit(false);
  }

  private emit(member: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (member) out['.'] = {};
    for (const pe of this.topElements()) {
      const k = encodePathElement(pe);
      const c = this.children.get(k);
      if (c && !c.set.isEmpty()) out[k] = c.set.emit(this.members.has(k));
      else out[k] = {};
    }
    return out;
  }

  /** Parses FieldsV1; throws a FieldsV1DecodeError on a malformed tree. */
  static fromFieldsV1(tree: unknown): FieldSet {
    const out = new FieldSet();
    out.read(tree);
    return out;
  }

  private read(tree: unknown): void {
    if (!isJsonObject(tree)) throw new FieldsV1DecodeError('expected an object in FieldsV1');
    for (const [k, v] of Object.entries(tree)) {
      if (k === '.') {
        if (!isJsonObject(v) || Object.keys(v).length) throw new FieldsV1DecodeError('expected an empty object for "."');
        continue;
      }
      const pe = k.startsWith('f:') ? { field: k.slice(2) } : decodePathElement(k);
      if (!isJsonObject(v)) throw new FieldsV1DecodeError(`expected an object for ${goQuote(k)}`);
      const keys = Object.keys(v);
      if (keys.includes('.') && (!isJsonObject(v['.']) || Object.keys(v['.']).length)) {
        throw new FieldsV1DecodeError('expected an empty object for "."');
      }
      if (keys.length === 0 || keys.includes('.')) this.members.set(encodePathElement(pe), pe);
      if (keys.length && !(keys.length === 1 && keys[0] === '.')) this.childMutable(pe).read(v);
    }
  }

  toString(): string {
    return this.paths().map(pathString).join(', ');
  }
}

function sortedValues(m: Map<string, PathElement>): PathElement[] {
  const values = [...m.values()];
  // Plain struct fields (the common case) sort by name, which their spelling `f:<name>` keeps.
  if (values.every((pe) => 'field' in pe)) {
    return values.sort((a, b) => compareStrings((a as { field: string }).field, (b as { field: string }).field));
  }
  return values.sort(comparePathElements);
}

function sortedChildren(m: Map<string, Child>): Child[] {
  return [...m.values()].sort((a, b) => comparePathElements(a.pe, b.pe));
}
