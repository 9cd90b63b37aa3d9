import { maxTrustBundleSize, validateTrustBundle, type ValidateTrustBundleOptions } from '@plat/x509';
import { fieldError, type FieldError } from './field-error.js';
import { FieldPath } from './field-path.js';
import { validateImmutableField, validateObjectMeta, validateObjectMetaUpdate } from './object-meta-validation.js';
import { validateClusterTrustBundleName, validateSignerName } from './signer-name.js';
import type { ClusterTrustBundle } from './cluster-trust-bundle.js';

/**
 * ClusterTrustBundle validation (Kubernetes' `pkg/apis/certificates/validation`): metadata with the
 * signer naming rule, signerName syntax, and the trust bundle's PEM/X.509 content through
 * @plat/x509. Returns field errors with exact paths; never throws.
 */

export { maxTrustBundleSize };

export interface ValidateClusterTrustBundleOptions {
  /** Skip the PEM/X.509 checks (an update that leaves trustBundle unchanged). */
  suppressBundleParsing?: boolean;
  /** Each certificate the PEM/X.509 checks accepted, as parsed (@plat/x509's validateTrustBundle option). */
  onCertificate?: ValidateTrustBundleOptions['onCertificate'];
  /**
   * Each block that Go's PEM decoder skips (no error, as in Kubernetes): a finding whose detail
   * names the block and its line, for a Warning on the write.
   */
  onSkippedBlock?: ValidateTrustBundleOptions['onSkippedBlock'];
}

const trustBundlePath = FieldPath.root('spec', 'trustBundle');
const signerNamePath = FieldPath.root('spec', 'signerName');

/** Turns @plat/x509's findings into Kubernetes' field errors on spec.trustBundle. */
export function validateClusterTrustBundleContent(trustBundle: string, path: FieldPath | string = trustBundlePath, options: ValidateTrustBundleOptions = {}): FieldError[] {
  return validateTrustBundle(trustBundle, options).map((finding) =>
    finding.kind === 'too-large'
      ? fieldError.tooLong(path, '', maxTrustBundleSize)
      : fieldError.invalid(path, '<value omitted>', finding.detail),
  );
}

/** Validation of a ClusterTrustBundle to be created (Kubernetes' `ValidateClusterTrustBundle`). */
export function validateClusterTrustBundle(obj: ClusterTrustBundle, options: ValidateClusterTrustBundleOptions = {}): FieldError[] {
  const signerName = obj.spec?.signerName ?? '';
  const errs = validateObjectMeta(obj.metadata, {
    namespaced: false,
    nameFn: validateClusterTrustBundleName(signerName),
    path: 'metadata',
  });
  if (signerName !== '') errs.push(...validateSignerName(signerName, signerNamePath));
  if (!options.suppressBundleParsing) {
    const { onCertificate, onSkippedBlock } = options;
    errs.push(
      ...validateClusterTrustBundleContent(obj.spec?.trustBundle ?? '', trustBundlePath, {
        ...(onCertificate ? { onCertificate } : {}),
        ...(onSkippedBlock ? { onSkippedBlock } : {}),
      }),
    );
  }
  return errs;
}

/**
 * Validation of an update (Kubernetes' `ValidateClusterTrustBundleUpdate`): the new object as on
 * create (its trust bundle parsed only when it changed, so stored bundles keep validating across
 * parser changes), metadata update rules, and signerName immutable.
 */
export function validateClusterTrustBundleUpdate(
  newObj: ClusterTrustBundle,
  oldObj: ClusterTrustBundle,
  options: Pick<ValidateClusterTrustBundleOptions, 'onCertificate' | 'onSkippedBlock'> = {},
): FieldError[] {
  const unchanged = (newObj.spec?.trustBundle ?? '') === (oldObj.spec?.trustBundle ?? '');
  return [
    ...validateClusterTrustBundle(newObj, { ...options, suppressBundleParsing: unchanged }),
    ...validateObjectMetaUpdate(newObj.metadata, oldObj.metadata, 'metadata'),
    ...validateImmutableField(newObj.spec?.signerName ?? '', oldObj.spec?.signerName ?? '', signerNamePath),
  ];
}
