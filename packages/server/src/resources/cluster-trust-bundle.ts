import {
  clusterTrustBundleApiVersion,
  clusterTrustBundleFields,
  clusterTrustBundleKind,
  clusterTrustBundleListKind,
  clusterTrustBundleResource as ctbResourceName,
  clusterTrustBundleSelectableFields,
  clusterTrustBundleVersion,
  newForbidden,
  signersResource,
  validateClusterTrustBundle,
  validateClusterTrustBundleUpdate,
  type ClusterTrustBundle,
} from '@plat/api-model';
import type { Attributes, Authorizer, UserInfo } from '@plat/auth';
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

export const clusterTrustBundleStrategy: ResourceStrategy = {
  validate: (obj) => validateClusterTrustBundle(obj as ClusterTrustBundle),
  validateUpdate: (obj, old) => validateClusterTrustBundleUpdate(obj as ClusterTrustBundle, old as ClusterTrustBundle),
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
  ],
  tableCells: (obj) => [(obj as ClusterTrustBundle).spec?.signerName || '<none>', ageCell(obj)],
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
