import { fieldError, type FieldError } from './field-error.js';
import { FieldPath } from './field-path.js';
import { goQuote } from './go-quote.js';
import { newLabelRequirement, type LabelSelectorRequirement, type SelectionOperator } from './label-requirement.js';
import { isValidLabelValue, validateLabelName, validateLabels } from './label-validation.js';
import { LabelSelector } from './label-selector.js';
import { SelectorError } from './selector-error.js';

/**
 * The structured label selector of the API (`meta/v1 LabelSelector`: matchLabels and
 * matchExpressions), its validation, and its conversion to a compiled LabelSelector.
 */

export const LabelSelectorOperator = {
  In: 'In',
  NotIn: 'NotIn',
  Exists: 'Exists',
  DoesNotExist: 'DoesNotExist',
} as const;
export type LabelSelectorOperator = (typeof LabelSelectorOperator)[keyof typeof LabelSelectorOperator];

/** One `matchExpressions` entry; any operator string (validation and conversion report an unknown one). */
export interface LabelSelectorObjectRequirement {
  key: string;
  operator: string;
  values?: string[] | null;
}

export interface LabelSelectorObject {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorObjectRequirement[] | null;
}

// The zod schemas live apart (zod is loaded only by those who decode with them).
export { labelSelectorObjectSchema, labelSelectorRequirementSchema } from './label-selector-object-schema.js';

const operators: Record<string, SelectionOperator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * Kubernetes' `LabelSelectorAsSelector`: an absent selector matches nothing, an empty one
 * everything. Throws SelectorError for an unknown operator or an invalid requirement.
 */
export function labelSelectorAsSelector(selector: LabelSelectorObject | null | undefined): LabelSelector {
  if (!selector) return LabelSelector.nothing();
  const labels = Object.entries(selector.matchLabels ?? {});
  const exprs = selector.matchExpressions ?? [];
  if (labels.length + exprs.length === 0) return LabelSelector.everything();
  const reqs: LabelSelectorRequirement[] = labels.map(([k, v]) => newLabelRequirement(k, '=', [v]));
  for (const expr of exprs) {
    const op = Object.hasOwn(operators, expr.operator) ? operators[expr.operator] : undefined;
    if (!op) throw new SelectorError('InvalidLabelSelector', `${goQuote(expr.operator)} is not a valid label selector operator`);
    reqs.push(newLabelRequirement(expr.key, op, [...(expr.values ?? [])]));
  }
  return LabelSelector.fromRequirements(reqs);
}

const expressionOperators: Partial<Record<SelectionOperator, LabelSelectorOperator>> = {
  in: 'In',
  notin: 'NotIn',
  // Kubernetes' ParseToLabelSelector refuses `!=`; NotIn with the one value selects the same objects
  // (both match a missing key), so `-l team!=a` works wherever a LabelSelector object is needed.
  '!=': 'NotIn',
  exists: 'Exists',
  '!': 'DoesNotExist',
};

/**
 * Kubernetes' `ParseToLabelSelector`: a selector string (`-l`) as a meta/v1 LabelSelector object,
 * `=`/`==` in matchLabels and the rest in matchExpressions. The empty string gives `{}` (matches
 * everything). Throws SelectorError for a syntax error and for `>`/`<`, which the object cannot hold.
 */
export function parseToLabelSelectorObject(selector: string): LabelSelectorObject {
  const matchLabels: Record<string, string> = {};
  const matchExpressions: LabelSelectorObjectRequirement[] = [];
  for (const req of LabelSelector.parse(selector).requirements()) {
    if (req.operator === '=' || req.operator === '==') {
      matchLabels[req.key] = req.values[0];
      continue;
    }
    const operator = expressionOperators[req.operator];
    if (!operator) throw new SelectorError('InvalidLabelSelector', `${goQuote(req.operator)} isn't supported in label selectors`);
    matchExpressions.push({ key: req.key, operator, ...(req.values.length ? { values: [...req.values] } : {}) });
  }
  return {
    ...(Object.keys(matchLabels).length ? { matchLabels } : {}),
    ...(matchExpressions.length ? { matchExpressions } : {}),
  };
}

/** Kubernetes' `LabelSelectorValidationOptions`. */
export interface LabelSelectorValidationOptions {
  /**
   * Skip the label-value syntax of `matchExpressions[].values` (default true, as the callers that
   * predate the check; Kubernetes passes false on create and true on an update of an object
   * that already had such a value).
   */
  allowInvalidLabelValueInSelector?: boolean;
}

/** Kubernetes' `ValidateLabelSelector` (meta/v1 validation). */
export function validateLabelSelectorObject(
  selector: LabelSelectorObject | null | undefined,
  path: FieldPath | string,
  options: LabelSelectorValidationOptions = {},
): FieldError[] {
  const p = typeof path === 'string' ? FieldPath.root(path) : path;
  const errs: FieldError[] = [];
  if (!selector) return errs;
  errs.push(...validateLabels(selector.matchLabels, p.child('matchLabels')));
  (selector.matchExpressions ?? []).forEach((expr, i) => {
    const ep = p.child('matchExpressions').index(i);
    const values = expr.values ?? [];
    switch (expr.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(fieldError.required(ep.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(fieldError.forbidden(ep.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(fieldError.invalid(ep.child('operator'), expr.operator, 'not a valid selector operator'));
    }
    errs.push(...validateLabelName(expr.key, ep.child('key')));
    if (options.allowInvalidLabelValueInSelector === false) {
      values.forEach((value, j) => {
        for (const msg of isValidLabelValue(value)) errs.push(fieldError.invalid(ep.child('values').index(j), value, msg));
      });
    }
  });
  return errs;
}
