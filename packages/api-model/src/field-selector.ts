import { compareGoStrings } from './go-string-order.js';
import { SelectorError } from './selector-error.js';

/**
 * Field selectors with Kubernetes' syntax, escaping and error texts (`k8s.io/apimachinery/pkg/fields`):
 * comma-joined terms `field=value`, `field==value` or `field!=value`, where a value escapes `\`, `,`
 * and `=` with a backslash. A selector is parsed once and matched against the field values a
 * resource strategy extracts from each object (`{'metadata.name': ..., 'spec.signerName': ...}`);
 * a field missing from that map reads as the empty string, as in Kubernetes.
 */

export type FieldSelectorOperator = '=' | '!=';

export interface FieldSelectorRequirement {
  readonly field: string;
  readonly operator: FieldSelectorOperator;
  readonly value: string;
}

export type Fields = Readonly<Record<string, string>>;

/** Rewrites a term (e.g. a field label conversion); both parts empty drops the term. Throw to reject. */
export type FieldSelectorTransform = (field: string, value: string) => { field: string; value: string };

/** Escapes a literal value for use in a field selector (`\` → `\\`, `,` → `\,`, `=` → `\=`). */
export function escapeFieldSelectorValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/**
 * Undoes escapeFieldSelectorValue. Throws SelectorError for an unknown escape
 * (`invalid field selector: invalid escape sequence: \x`) or a bare `,`/`=`
 * (`invalid field selector: unescaped character in value: 44`, Go printing the rune as a number).
 */
export function unescapeFieldSelectorValue(value: string): string {
  if (!/[\\,=]/.test(value)) return value;
  let out = '';
  let inSlash = false;
  for (const c of value) {
    if (inSlash) {
      if (c === '\\' || c === ',' || c === '=') out += c;
      else throw new SelectorError('InvalidFieldSelector', `invalid field selector: invalid escape sequence: \\${c}`);
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') {
      throw new SelectorError('InvalidFieldSelector', `invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else out += c;
  }
  if (inSlash) throw new SelectorError('InvalidFieldSelector', 'invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Splits on commas that are not escaped; escapes stay in the terms. */
function splitTerms(selector: string): string[] {
  if (selector.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

const termOperators = ['!=', '==', '='] as const;

/** The first operator occurrence splits the term; the field part has no escaping. */
function splitTerm(term: string): { lhs: string; op: (typeof termOperators)[number]; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of termOperators) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/** A compiled field selector: an AND of equality and inequality terms. */
export class FieldSelector {
  private static readonly everythingSelector = new FieldSelector([]);

  private constructor(private readonly terms: readonly FieldSelectorRequirement[]) {}

  /** Parses Kubernetes' field selector syntax; throws SelectorError with Kubernetes' message. */
  static parse(selector: string): FieldSelector {
    const parts = splitTerms(selector).sort(compareGoStrings);
    const terms: FieldSelectorRequirement[] = [];
    for (const part of parts) {
      if (part === '') continue;
      const split = splitTerm(part);
      if (!split) throw new SelectorError('InvalidFieldSelector', `invalid selector: '${selector}'; can't understand '${part}'`);
      const value = unescapeFieldSelectorValue(split.rhs);
      terms.push({ field: split.lhs, operator: split.op === '!=' ? '!=' : '=', value });
    }
    return terms.length === 0 ? FieldSelector.everythingSelector : new FieldSelector(terms);
  }

  static everything(): FieldSelector {
    return FieldSelector.everythingSelector;
  }

  /** `field=value` for every pair of the set. */
  static fromSet(set: Fields | null | undefined): FieldSelector {
    const terms = Object.entries(set ?? {}).map(([field, value]) => ({ field, operator: '=' as const, value }));
    return terms.length === 0 ? FieldSelector.everythingSelector : new FieldSelector(terms);
  }

  /** The AND of several selectors (Kubernetes' `AndSelectors`). */
  static and(...selectors: FieldSelector[]): FieldSelector {
    const terms = selectors.flatMap((s) => s.terms);
    return terms.length === 0 ? FieldSelector.everythingSelector : new FieldSelector(terms);
  }

  matches(fields: Fields): boolean {
    for (const t of this.terms) {
      const actual = Object.hasOwn(fields, t.field) ? fields[t.field] : '';
      if (t.operator === '=' ? actual !== t.value : actual === t.value) return false;
    }
    return true;
  }

  isEmpty(): boolean {
    return this.terms.length === 0;
  }

  requirements(): readonly FieldSelectorRequirement[] {
    return this.terms;
  }

  /** The value an `=` term demands for `field`, if any. */
  requiresExactMatch(field: string): string | undefined {
    for (const t of this.terms) if (t.field === field && t.operator === '=') return t.value;
    return undefined;
  }

  /** A copy with every term rewritten by `fn` (terms rewritten to empty field and value are dropped). */
  transform(fn: FieldSelectorTransform): FieldSelector {
    const terms: FieldSelectorRequirement[] = [];
    for (const t of this.terms) {
      const next = fn(t.field, t.value);
      if (next.field === '' && next.value === '') continue;
      terms.push({ field: next.field, operator: t.operator, value: next.value });
    }
    return terms.length === 0 ? FieldSelector.everythingSelector : new FieldSelector(terms);
  }

  /**
   * Rejects a term on a field the resource does not support, with kube-apiserver's text
   * (`field label not supported: spec.foo`).
   */
  checkSupportedFields(supported: Iterable<string>): FieldSelector {
    const allowed = new Set(supported);
    return this.transform((field, value) => {
      if (!allowed.has(field)) throw new SelectorError('InvalidFieldSelector', `field label not supported: ${field}`);
      return { field, value };
    });
  }

  toString(): string {
    return this.terms.map((t) => `${t.field}${t.operator}${escapeFieldSelectorValue(t.value)}`).join(',');
  }
}

/** Parses a field selector string (same as `FieldSelector.parse`). */
export function parseFieldSelector(selector: string): FieldSelector {
  return FieldSelector.parse(selector);
}
