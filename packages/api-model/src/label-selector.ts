import { compareGoStrings } from './go-string-order.js';
import {
  CompiledRequirement,
  newLabelRequirement,
  type LabelRequirementOptions,
  type LabelSelectorRequirement,
  type Labels,
} from './label-requirement.js';
import { parseLabelRequirements } from './label-selector-parser.js';

/**
 * Label selectors with Kubernetes' grammar and error texts (`k8s.io/apimachinery/pkg/labels`):
 *
 *   <selector>    ::= <requirement> | <requirement> "," <selector>
 *   <requirement> ::= [!] KEY [ ("in" | "notin") "(" VALUE ("," VALUE)* ")" | ("=" | "==" | "!=" | ">" | "<") VALUE ]
 *
 * A selector is parsed and compiled once, then matched against any number of label maps.
 */

const byKey = (a: LabelSelectorRequirement, b: LabelSelectorRequirement) => compareGoStrings(a.key, b.key);

/** A compiled label selector: an AND of requirements, or the selector that matches nothing. */
export class LabelSelector {
  private static readonly everythingSelector = new LabelSelector([], false);
  private static readonly nothingSelector = new LabelSelector([], true);

  /** The whole selector as one test, chosen once: see `matcherOf`. */
  readonly #test: (labels: Labels) => boolean;

  private constructor(
    private readonly reqs: readonly CompiledRequirement[],
    private readonly nothing: boolean,
  ) {
    this.#test = matcherOf(reqs, nothing);
  }

  /** Parses Kubernetes' selector syntax; throws SelectorError with Kubernetes' message. */
  static parse(selector: string, options: LabelRequirementOptions = {}): LabelSelector {
    const reqs = parseLabelRequirements(selector, options.path);
    return reqs.length === 0 ? LabelSelector.everythingSelector : new LabelSelector(reqs.sort(byKey), false);
  }

  /** Matches every label set (an empty selector string). */
  static everything(): LabelSelector {
    return LabelSelector.everythingSelector;
  }

  /** Matches no label set (Kubernetes' `labels.Nothing()`). */
  static nothing(): LabelSelector {
    return LabelSelector.nothingSelector;
  }

  /** `k1=v1,k2=v2` for a set; with `validate`, each pair is checked as Kubernetes' `ValidatedSelectorFromSet` does. */
  static fromSet(set: Labels | null | undefined, options: { validate?: boolean } = {}): LabelSelector {
    const entries = Object.entries(set ?? {});
    if (entries.length === 0) return LabelSelector.everythingSelector;
    const reqs = entries.map(([k, v]) =>
      options.validate ? (newLabelRequirement(k, '=', [v]) as CompiledRequirement) : new CompiledRequirement(k, '=', [v]),
    );
    return new LabelSelector(reqs.sort(byKey), false);
  }

  /** A selector of the given requirements (built with newLabelRequirement or taken from another selector). */
  static fromRequirements(reqs: readonly LabelSelectorRequirement[]): LabelSelector {
    if (reqs.length === 0) return LabelSelector.everythingSelector;
    return new LabelSelector(reqs.map(compile).sort(byKey), false);
  }

  /** A new selector with more requirements (Kubernetes' `Add`). */
  add(...reqs: LabelSelectorRequirement[]): LabelSelector {
    if (this.nothing) return this;
    return new LabelSelector([...this.reqs, ...reqs.map(compile)].sort(byKey), false);
  }

  matches(labels: Labels | null | undefined): boolean {
    return this.#test(labels ?? noLabels);
  }

  /** True when the selector does not restrict anything. */
  isEmpty(): boolean {
    return !this.nothing && this.reqs.length === 0;
  }

  /** True only for `LabelSelector.nothing()`. */
  matchesNothing(): boolean {
    return this.nothing;
  }

  requirements(): readonly LabelSelectorRequirement[] {
    return this.reqs;
  }

  /** The value a selector demands for `key` (`=`, `==` or a one-value `in`), if any. */
  requiresExactMatch(key: string): string | undefined {
    for (const r of this.reqs) {
      if (r.key !== key) continue;
      if ((r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1) return r.values[0];
      return undefined;
    }
    return undefined;
  }

  /** Kubernetes' canonical form: requirements sorted by key, joined by commas. */
  toString(): string {
    return this.reqs.map((r) => r.toString()).join(',');
  }
}

const noLabels: Labels = Object.freeze({});

/**
 * A selector's test: the one requirement's own test when there is one (the common
 * `labelSelector=app=x`), else a loop over them, allocating nothing per label set.
 */
function matcherOf(reqs: readonly CompiledRequirement[], nothing: boolean): (labels: Labels) => boolean {
  if (nothing) return () => false;
  if (reqs.length === 0) return () => true;
  if (reqs.length === 1) {
    const r = reqs[0]!;
    return (labels) => r.matches(labels);
  }
  return (labels) => {
    for (let i = 0; i < reqs.length; i++) if (!reqs[i]!.matches(labels)) return false;
    return true;
  };
}

function compile(r: LabelSelectorRequirement): CompiledRequirement {
  return r instanceof CompiledRequirement ? r : new CompiledRequirement(r.key, r.operator, [...r.values]);
}

/** Parses a label selector string (same as `LabelSelector.parse`). */
export function parseLabelSelector(selector: string, options: LabelRequirementOptions = {}): LabelSelector {
  return LabelSelector.parse(selector, options);
}
