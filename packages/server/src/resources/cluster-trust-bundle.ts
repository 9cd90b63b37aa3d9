import {
  clusterTrustBundleApiVersion,
  clusterTrustBundleFields,
  clusterTrustBundleKind,
  clusterTrustBundleListKind,
  clusterTrustBundleResource as ctbResourceName,
  clusterTrustBundleSelectableFields,
  clusterTrustBundleVersion,
  formatMetaTime,
  goQuote,
  humanDuration,
  newForbidden,
  signersResource,
  validateClusterTrustBundle,
  validateClusterTrustBundleUpdate,
  type ClusterTrustBundle,
} from '@plat/api-model';
import type { ApiObject } from '@plat/api-model';
import type { Attributes, Authorizer, UserInfo } from '@plat/auth';
import { trustAnchorFacts, trustAnchorValidity, type TrustAnchor } from '@plat/x509';
import { clusterTrustBundleDefinitions } from '../openapi/meta-definitions.generated.js';
import type { AdmissionRequest, ResourceDefinition, ResourceStrategy } from '../resource.js';
import { ageCell, ageColumn } from '../table.js';
import { onlyGcFieldsChanged } from './gc-fields.js';

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
export async function isAuthorizedForSigner(authorizer: Authorizer, user: UserInfo, signerName: string, signal?: AbortSignal): Promise<boolean> {
  for (const name of [signerName, `${signerName.split('/')[0]}/*`]) {
    try {
      const result = await authorizer.authorize(signerAttributes(user, name), { signal });
      if (result.decision === 'Allow') return true;
    } catch {
      // as Kubernetes: log-worthy, but the answer is "not allowed"
    }
  }
  return false;
}

/** The ClusterTrustBundleAttest admission plugin. */
async function admitAttest(req: AdmissionRequest): Promise<void> {
  if (req.operation !== 'CREATE' && req.operation !== 'UPDATE') return;
  const bundle = req.object as ClusterTrustBundle;
  const signerName = bundle.spec?.signerName ?? '';
  if (signerName === '') return;
  if (req.operation === 'UPDATE' && req.oldObject && onlyGcFieldsChanged(req.object, req.oldObject)) return;
  if (await isAuthorizedForSigner(req.authorizer, req.user, signerName, req.signal)) return;
  throw newForbidden(
    { group, resource: ctbResourceName },
    bundle.metadata?.name ?? '',
    new Error(`user not permitted to attest for signerName ${JSON.stringify(signerName)}`),
  );
}

/** Anchors whose notAfter falls within this window of the write get a warning (30 days). */
export const anchorExpiryWarningWindowMs = 30 * 24 * 3600_000;

function anchorName(anchor: TrustAnchor): string {
  return `trust anchor ${goQuote(anchor.subject)} (sha256 ${anchor.sha256.slice(0, 16)})`;
}

/**
 * The warnings of a write that stores `obj` (Kubernetes' WarningsOnCreate/WarningsOnUpdate): one
 * per anchor that is expired, not yet valid or expires within 30 days of `now`. An update that
 * keeps spec.trustBundle as stored warns about nothing and parses nothing, as kube-apiserver's
 * workload strategies warn on update only when the spec they check changed.
 */
export function clusterTrustBundleWarnings(obj: ApiObject, old?: ApiObject, now: number = Date.now()): string[] {
  const pem = (obj as ClusterTrustBundle).spec?.trustBundle;
  if (typeof pem !== 'string' || pem === '') return [];
  if (old && (old as ClusterTrustBundle).spec?.trustBundle === pem) return [];
  const warnings: string[] = [];
  for (const anchor of trustAnchorFacts(pem).anchors) {
    const validity = trustAnchorValidity(anchor, { now, soonMs: anchorExpiryWarningWindowMs });
    if (validity === 'expired') {
      warnings.push(`spec.trustBundle: ${anchorName(anchor)} expired at ${formatMetaTime(anchor.notAfter)}`);
    } else if (validity === 'not-yet-valid') {
      warnings.push(`spec.trustBundle: ${anchorName(anchor)} is not valid before ${formatMetaTime(anchor.notBefore)}`);
    } else if (validity === 'expires-soon') {
      const left = humanDuration(anchor.notAfter.getTime() - now);
      warnings.push(`spec.trustBundle: ${anchorName(anchor)} expires at ${formatMetaTime(anchor.notAfter)} (in ${left})`);
    }
  }
  return warnings;
}

/** The wide columns' cells: how many anchors the bundle holds and the earliest notAfter (RFC 3339). */
function anchorCells(obj: ApiObject): [number, string] {
  const pem = (obj as ClusterTrustBundle).spec?.trustBundle;
  if (typeof pem !== 'string' || pem === '') return [0, '<none>'];
  const { anchors, earliestNotAfter } = trustAnchorFacts(pem);
  return [anchors.length, earliestNotAfter ? formatMetaTime(earliestNotAfter) : '<none>'];
}

export const clusterTrustBundleStrategy: ResourceStrategy = {
  validate: (obj) => validateClusterTrustBundle(obj as ClusterTrustBundle),
  validateUpdate: (obj, old) => validateClusterTrustBundleUpdate(obj as ClusterTrustBundle, old as ClusterTrustBundle),
  warnings: (obj, old) => clusterTrustBundleWarnings(obj, old),
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
  tableCells: (obj) => [(obj as ClusterTrustBundle).spec?.signerName || '<none>', ageCell(obj), ...anchorCells(obj)],
};

/** ClusterTrustBundle (`certificates.plat.io/v1alpha1`, cluster-scoped) as a served resource. */
export function clusterTrustBundleResource(): ResourceDefinition {
  return {
    group,
    version: clusterTrustBundleVersion,
    resource: ctbResourceName,
    singular: 'clustertrustbundle',
    kind: clusterTrustBundleKind,
    listKind: clusterTrustBundleListKind,
    namespaced: false,
    shortNames: ['ctb'],
    categories: ['plat'],
    definitionName: `io.plat.api.certificates.${clusterTrustBundleVersion}.${clusterTrustBundleKind}`,
    definitions: clusterTrustBundleDefinitions,
    strategy: clusterTrustBundleStrategy,
  };
}
