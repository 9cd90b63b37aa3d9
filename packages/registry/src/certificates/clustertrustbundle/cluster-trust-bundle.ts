import {
  apiGroupNames,
  clusterTrustBundleApiVersion,
  clusterTrustBundleFields,
  clusterTrustBundleKind,
  clusterTrustBundleListKind,
  clusterTrustBundleResource as ctbResourceName,
  clusterTrustBundleSelectableFields,
  clusterTrustBundleServedVersions,
  clusterTrustBundleStorageVersion,
  formatMetaTime,
  goQuote,
  humanDuration,
  newForbidden,
  signersResource,
  validateClusterTrustBundle,
  validateClusterTrustBundleUpdate,
  type ApiObject,
  type ClusterTrustBundle,
  type FieldError,
  type ValidateClusterTrustBundleOptions,
} from '@plat/api-model';
import type { Attributes, Authorizer, RequestScope, UserInfo } from '@plat/auth';
import { describeTrustAnchor, trustAnchorFacts, trustAnchorValidity, type TrustAnchor } from '@plat/x509';
import { ClusterTrustBundleCache, sha256Hex, type ValidatedCertificate } from './cluster-trust-bundle-cache.js';
import { clusterTrustBundleMessage, clusterTrustBundleOpenApi, clusterTrustBundleToStorageVersion } from './cluster-trust-bundle-versions.js';
import type { AdmissionRequest, ResourceDefinition, ResourceStrategy } from '@plat/server';
import { ageCell, ageColumn } from '@plat/server';
import { onlyGcFieldsChanged } from '../../gc-fields.js';

const group = clusterTrustBundleApiVersion.split('/')[0]!;

function signerAttributes(user: UserInfo, signerName: string): Attributes {
  return {
    user,
    verb: 'attest',
    resourceRequest: true,
    apiGroup: group,
    apiVersion: '*',
    resource: signersResource,
    subresource: '',
    namespace: '',
    name: signerName,
    path: '',
  };
}

/**
 * Kubernetes' certauthorization.IsAuthorizedForSignerName: `attest` on the signer by name, or on
 * `<domain>/*` for every signer of the domain. An authorizer error counts as not allowed.
 */
export async function isAuthorizedForSigner(authorizer: Authorizer, user: UserInfo, signerName: string, scope?: RequestScope): Promise<boolean> {
  for (const name of [signerName, `${signerName.split('/')[0]}/*`]) {
    try {
      const result = await authorizer.authorize(signerAttributes(user, name), scope);
      if (result.decision === 'Allow') return true;
    } catch {
      // as Kubernetes: log-worthy, but the answer is "not allowed"
    }
  }
  return false;
}

/** The audit annotation of the ClusterTrustBundleAttest admission: the signer whose `attest` permission was checked. */
export const attestSignerAnnotationKey = 'clustertrustbundleattest.admission.plat.io/signer';

/** The ClusterTrustBundleAttest admission plugin. */
async function admitAttest(req: AdmissionRequest): Promise<void> {
  if (req.operation !== 'CREATE' && req.operation !== 'UPDATE') return;
  const bundle = req.object as ClusterTrustBundle;
  const signerName = bundle.spec?.signerName ?? '';
  if (signerName === '') return;
  if (req.operation === 'UPDATE' && req.oldObject && onlyGcFieldsChanged(req.object, req.oldObject)) return;
  // The audit record names the signer the write was checked against, allowed or not.
  req.addAuditAnnotation?.(attestSignerAnnotationKey, signerName);
  if (await isAuthorizedForSigner(req.authorizer, req.user, signerName, req.scope)) return;
  // Named under the group the client wrote, as kube-apiserver names the resource it was asked for.
  throw newForbidden(
    { group: req.request.apiGroup, resource: ctbResourceName },
    bundle.metadata?.name ?? '',
    new Error(`user not permitted to attest for signerName ${JSON.stringify(signerName)}`),
  );
}

/** Anchors whose notAfter falls within this window of the write get a warning (30 days). */
export const anchorExpiryWarningWindowMs = 30 * 24 * 3600_000;

/**
 * Warnings about skipped PEM blocks per write: a bundle of thousands of broken blocks gets this many
 * warnings and one that counts the rest, so the Warning headers stay within their own bound.
 */
export const maxSkippedBlockWarnings = 5;

/**
 * Runs `validate` collecting the certificates it parses; when the bundle is valid they are kept
 * for the warnings and summarized for the tables and metrics, so a write parses its anchors once.
 */
function validateKeeping(
  cache: ClusterTrustBundleCache,
  obj: ApiObject,
  validate: (options: Pick<ValidateClusterTrustBundleOptions, 'onCertificate' | 'onSkippedBlock'>) => FieldError[],
): FieldError[] {
  const certs: ValidatedCertificate[] = [];
  const skipped: string[] = [];
  let skippedTotal = 0;
  const errs = validate({
    onCertificate: (der, c) => certs.push({ der, notBefore: c.notBefore, notAfter: c.notAfter }),
    onSkippedBlock: (finding) => {
      if (skippedTotal++ < maxSkippedBlockWarnings) skipped.push(finding.detail);
    },
  });
  if (errs.length === 0 && certs.length > 0) cache.keepValidated(obj, (obj as ClusterTrustBundle).spec.trustBundle, { certs, skipped, skippedTotal });
  return errs;
}

/** How a warning names an anchor: its subject and the first 16 hex digits of its SHA-256. */
function anchorName(anchor: Pick<TrustAnchor, 'subject' | 'sha256'>): string {
  return `trust anchor ${goQuote(anchor.subject)} (sha256 ${anchor.sha256.slice(0, 16)})`;
}

/** The name of a certificate validation accepted: described only now, for the few that warn. */
function validatedAnchorName(der: Uint8Array): string {
  const sha256 = sha256Hex(der);
  return anchorName({ subject: describeTrustAnchor(der, sha256)?.subject ?? '', sha256 });
}

/**
 * The warnings of a write that stores `obj` (Kubernetes' WarningsOnCreate/WarningsOnUpdate): one
 * per anchor that is expired, not yet valid or expires within 30 days of `now`. An update that
 * keeps spec.trustBundle as stored warns about nothing and parses nothing, as kube-apiserver's
 * workload strategies warn on update only when the spec they check changed. After validation
 * the times come from its parse (kept in `cache` by the strategy that validated `obj`); only an
 * anchor that warns is described (subject, SHA-256).
 */
export function clusterTrustBundleWarnings(obj: ApiObject, old?: ApiObject, now: number = Date.now(), cache?: ClusterTrustBundleCache): string[] {
  const pem = (obj as ClusterTrustBundle).spec?.trustBundle;
  if (typeof pem !== 'string' || pem === '') return [];
  if (old && (old as ClusterTrustBundle).spec?.trustBundle === pem) return [];
  const validated = cache?.validated(obj);
  const anchors = validated
    ? validated.certs.map((c) => ({ notBefore: c.notBefore, notAfter: c.notAfter, name: () => validatedAnchorName(c.der) }))
    : trustAnchorFacts(pem).anchors.map((a) => ({ notBefore: a.notBefore, notAfter: a.notAfter, name: () => anchorName(a) }));
  // Go's pem.Decode skips a block that does not decode, so Kubernetes stores the bundle without a
  // word; the consumers skip it too, and the writer hears which block nobody will read.
  const warnings: string[] = (validated?.skipped ?? []).map((detail) => `spec.trustBundle: ${detail}`);
  if (validated && validated.skippedTotal > validated.skipped.length) {
    warnings.push(`spec.trustBundle: ${validated.skippedTotal - validated.skipped.length} more blocks that do not parse as PEM skipped`);
  }
  for (const anchor of anchors) {
    const validity = trustAnchorValidity(anchor, { now, soonMs: anchorExpiryWarningWindowMs });
    if (validity === 'expired') {
      warnings.push(`spec.trustBundle: ${anchor.name()} expired at ${formatMetaTime(anchor.notAfter)}`);
    } else if (validity === 'not-yet-valid') {
      warnings.push(`spec.trustBundle: ${anchor.name()} is not valid before ${formatMetaTime(anchor.notBefore)}`);
    } else if (validity === 'expires-soon') {
      const left = humanDuration(anchor.notAfter.getTime() - now);
      warnings.push(`spec.trustBundle: ${anchor.name()} expires at ${formatMetaTime(anchor.notAfter)} (in ${left})`);
    }
  }
  return warnings;
}

/** The wide columns' cells: how many anchors the bundle holds and the earliest notAfter (RFC 3339). */
function anchorCells(cache: ClusterTrustBundleCache, obj: ApiObject): [number, string] {
  const pem = (obj as ClusterTrustBundle).spec?.trustBundle;
  const summary = cache.summary(typeof pem === 'string' ? pem : '');
  return [summary.anchors, summary.earliestNotAfter === undefined ? '<none>' : formatMetaTime(summary.earliestNotAfter)];
}

/** The ClusterTrustBundle strategy, remembering its parses in `cache` (its own unless given). */
export function clusterTrustBundleStrategy(cache: ClusterTrustBundleCache = new ClusterTrustBundleCache()): ResourceStrategy {
  return {
    validate: (obj) => validateKeeping(cache, obj, (options) => validateClusterTrustBundle(obj as ClusterTrustBundle, options)),
    validateUpdate: (obj, old) =>
      validateKeeping(cache, obj, (options) => validateClusterTrustBundleUpdate(obj as ClusterTrustBundle, old as ClusterTrustBundle, options)),
    warnings: (obj, old) => clusterTrustBundleWarnings(obj, old, Date.now(), cache),
    admit: admitAttest,
    allowCreateOnUpdate: false,
    // Kubernetes' clustertrustbundle strategy: a PUT must name the resourceVersion it replaces.
    allowUnconditionalUpdate: false,
    selectableFields: (obj) => clusterTrustBundleFields(obj as ClusterTrustBundle),
    selectableFieldNames: clusterTrustBundleSelectableFields,
    tableColumns: [
      {
        name: 'SignerName',
        type: 'string',
        description: 'signerName indicates the associated signer, if any.',
      },
      ageColumn,
      // Wide only (kubectl get -o wide), as kube's printers add their extra columns.
      { name: 'Anchors', type: 'integer', description: 'The number of trust anchors (certificates) in trustBundle.', priority: 1 },
      {
        name: 'Not-After',
        type: 'string',
        format: 'date-time',
        description: 'The earliest notAfter of the trust anchors in trustBundle (RFC 3339): when the first of them expires.',
        priority: 1,
      },
    ],
    tableCells: (obj) => [(obj as ClusterTrustBundle).spec?.signerName || '<none>', ageCell(obj), ...anchorCells(cache, obj)],
  };
}

export interface ClusterTrustBundleResourceOptions {
  /** Where the strategy keeps its parses; share it with startClusterTrustBundleMetrics (default: its own). */
  cache?: ClusterTrustBundleCache;
}

/**
 * ClusterTrustBundle (cluster-scoped) as a served resource: `certificates.plat.io` v1 (preferred),
 * v1beta1 and v1alpha1, and Kubernetes' `certificates.k8s.io` v1 and v1beta1, every one backed by
 * the same objects, stored as `certificates.plat.io/v1`.
 */
export function clusterTrustBundleResource(options: ClusterTrustBundleResourceOptions = {}): ResourceDefinition {
  return {
    group,
    groups: apiGroupNames(group),
    version: clusterTrustBundleStorageVersion,
    servedVersions: clusterTrustBundleServedVersions,
    toStorageVersion: clusterTrustBundleToStorageVersion,
    openApiAs: clusterTrustBundleOpenApi,
    resource: ctbResourceName,
    singular: 'clustertrustbundle',
    kind: clusterTrustBundleKind,
    listKind: clusterTrustBundleListKind,
    namespaced: false,
    shortNames: ['ctb'],
    categories: ['plat'],
    ...clusterTrustBundleOpenApi(group, clusterTrustBundleStorageVersion),
    protobuf: clusterTrustBundleMessage,
    strategy: clusterTrustBundleStrategy(options.cache),
  };
}
