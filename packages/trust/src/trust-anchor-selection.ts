import {
  FieldPath,
  aggregateFieldErrors,
  clusterTrustBundleResource,
  certificatesGroup,
  clusterTrustBundleVersion,
  escapeFieldSelectorValue,
  fieldError,
  labelSelectorAsSelector,
  signerNameFromClusterTrustBundleName,
  validateClusterTrustBundleName,
  validateLabelSelectorObject,
  validateSignerName,
  type FieldError,
  type LabelSelector,
  type LabelSelectorObject,
} from '@plat/api-model';
import { TrustError } from './trust-error.js';

/**
 * Which ClusterTrustBundles to trust, with the fields and meaning of the kubelet's
 * `clusterTrustBundle` projection: one bundle by `name`, or every bundle of `signerName` whose
 * labels match `labelSelector`. As in the kubelet, an absent labelSelector matches nothing and
 * `{}` matches all of the signer's bundles. With `optional`, a selection that matches nothing
 * stands for an empty set of anchors instead of an error.
 */
export interface TrustAnchorSelection {
  name?: string;
  signerName?: string;
  labelSelector?: LabelSelectorObject | null;
  optional?: boolean;
}

export const clusterTrustBundlesPath = `/apis/${certificatesGroup}/${clusterTrustBundleVersion}/${clusterTrustBundleResource}`;

/** The part of a ClusterTrustBundle the selection and the anchors look at. */
export interface SelectableBundle {
  metadata?: { name?: string; labels?: Record<string, string> | null; resourceVersion?: string };
  spec?: { signerName?: string; trustBundle?: string };
}

/** A validated selection: its list query and its matcher, compiled once. */
export interface CompiledSelection {
  readonly selection: TrustAnchorSelection;
  /** The list query (`fieldSelector`, `labelSelector`); undefined when nothing can match. */
  readonly listQuery?: { fieldSelector: string; labelSelector?: string };
  /** Whether a bundle belongs to the selection (the server filters too; this keeps us exact). */
  matches(bundle: SelectableBundle): boolean;
  /** For messages: `clustertrustbundle "x"` or `signer "s" with labels "a=b"`. */
  readonly description: string;
}

/** Kubernetes' validation of a clusterTrustBundle projection, without its `path` field. */
export function validateTrustAnchorSelection(selection: TrustAnchorSelection): FieldError[] {
  const errs: FieldError[] = [];
  const usingName = selection.name !== undefined;
  const usingSigner = selection.signerName !== undefined;
  if (usingName && usingSigner) {
    return [fieldError.invalid(FieldPath.root('clusterTrustBundle'), `{name: ${selection.name}, signerName: ${selection.signerName}}`, 'only one of name and signerName may be used')];
  }
  if (usingName) {
    const name = selection.name!;
    if (typeof name !== 'string' || name === '') return [fieldError.required(FieldPath.root('name'), 'must be a valid object name')];
    const signer = signerNameFromClusterTrustBundleName(name);
    for (const msg of validateClusterTrustBundleName(signer ?? '')(name, false)) {
      errs.push(fieldError.invalid(FieldPath.root('name'), name, `not a valid clustertrustbundlename: ${msg}`));
    }
    if (selection.labelSelector !== undefined && selection.labelSelector !== null) {
      errs.push(fieldError.invalid(FieldPath.root('labelSelector'), JSON.stringify(selection.labelSelector), 'labelSelector must be unset if name is specified'));
    }
    return errs;
  }
  if (usingSigner) {
    const signerName = selection.signerName!;
    if (typeof signerName !== 'string' || signerName === '') return [fieldError.required(FieldPath.root('signerName'), 'must be a valid signer name')];
    errs.push(...validateSignerName(signerName, FieldPath.root('signerName')));
    errs.push(...validateLabelSelectorObject(selection.labelSelector, FieldPath.root('labelSelector'), { allowInvalidLabelValueInSelector: false }));
    return errs;
  }
  return [fieldError.required(FieldPath.root('clusterTrustBundle'), 'either name or signerName must be specified')];
}

function describe(selection: TrustAnchorSelection, selector: LabelSelector | undefined): string {
  if (selection.name !== undefined) return `clustertrustbundle ${JSON.stringify(selection.name)}`;
  if (!selector || selector.matchesNothing()) return `signer ${JSON.stringify(selection.signerName)} with no label selector (matches nothing)`;
  const labels = selector.toString();
  return labels ? `signer ${JSON.stringify(selection.signerName)} with labels ${JSON.stringify(labels)}` : `signer ${JSON.stringify(selection.signerName)}`;
}

/** Validates and compiles a selection; throws TrustError `InvalidSelection` with Kubernetes' field errors. */
export function compileSelection(selection: TrustAnchorSelection): CompiledSelection {
  const errs = validateTrustAnchorSelection(selection ?? {});
  if (errs.length > 0) throw new TrustError('InvalidSelection', `invalid trust anchor selection: ${aggregateFieldErrors(errs)}`);
  if (selection.name !== undefined) {
    const name = selection.name;
    return {
      selection,
      listQuery: { fieldSelector: `metadata.name=${escapeFieldSelectorValue(name)}` },
      matches: (b) => b.metadata?.name === name,
      description: describe(selection, undefined),
    };
  }
  const signerName = selection.signerName!;
  const selector = labelSelectorAsSelector(selection.labelSelector);
  const labelSelector = selector.toString();
  return {
    selection,
    listQuery: selector.matchesNothing()
      ? undefined
      : { fieldSelector: `spec.signerName=${escapeFieldSelectorValue(signerName)}`, ...(labelSelector ? { labelSelector } : {}) },
    matches: (b) => (b.spec?.signerName ?? '') === signerName && selector.matches(b.metadata?.labels ?? {}),
    description: describe(selection, selector),
  };
}
