import {
  SubjectKind,
  apiGroupNames,
  clusterRoleBindingKind,
  clusterRoleBindingResource,
  clusterRoleKind,
  clusterRoleResource,
  rbacGroup,
  rbacVersion,
  renameRbacApiGroups,
  roleBindingKind,
  roleBindingResource,
  roleKind,
  roleResource,
  setRbacBindingDefaults,
  validateClusterRole,
  validateClusterRoleBinding,
  validateClusterRoleBindingUpdate,
  validateClusterRoleUpdate,
  validateRole,
  validateRoleBinding,
  validateRoleBindingUpdate,
  validateRoleUpdate,
  type ApiObject,
  type ClusterRole,
  type FieldError,
  type Role,
  type RoleBinding,
  type Subject,
} from '@plat/api-model';
import { checkBindingEscalation, checkRoleEscalation, type RbacRuleResolver } from '@plat/auth';
import { kubernetesRbacDefinitions, rbacDefinitions } from '../kind-definitions.generated.js';
import { ageCell, ageColumn, type AdmissionRequest, type OpenApiKind, type ProtobufMessage, type ResourceDefinition, type ResourceStrategy, type TableColumn } from '@plat/server';
import { onlyGcFieldsChanged } from '../gc-fields.js';
import { bindingMessage, clusterRoleMessage, roleMessage } from './rbac-protobuf.js';

/**
 * The RBAC resources (`rbac.authorization.plat.io/v1`: ClusterRole, ClusterRoleBinding, Role,
 * RoleBinding), as Kubernetes' RBAC registry serves them: validation and v1 defaulting from
 * @plat/api-model, escalation prevention from @plat/auth (the policybased storages' checks, run
 * here as validating admission), Kubernetes' table columns. The same objects are also served
 * under `rbac.authorization.k8s.io/v1`, where kubectl's generators and typed clients post: the
 * group names in bindings' roleRef and subjects are stored as the plat name and read back under
 * the name of the group the client asked.
 */

export interface RbacResourcesOptions {
  /**
   * The rules users hold, for escalation prevention: the resolver of the RBAC authorizer (or of a
   * policy store fed from the same objects). Kubernetes checks escalation with it whether or not
   * RBAC is among the authorization modes.
   */
  resolver: RbacRuleResolver;
  /** Also serve the objects under `rbac.authorization.k8s.io/v1`. Default true. */
  kubernetesGroup?: boolean;
}

/** Kubernetes' default table convertor: the creation time as RFC 3339 in UTC. */
const createdAtColumn: TableColumn = { name: 'Created At', type: 'date', description: ageColumn.description };

function createdAtCell(obj: ApiObject): string {
  const ts = obj.metadata?.creationTimestamp;
  return ts ? new Date(ts).toISOString().replace(/\.\d{3}Z$/, 'Z') : '';
}

const bindingColumns = (kind: string): TableColumn[] => [
  {
    name: 'Role',
    type: 'string',
    description:
      'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
  },
  ageColumn,
  { name: 'Users', type: 'string', priority: 1, description: `Users in the ${kind}` },
  { name: 'Groups', type: 'string', priority: 1, description: `Groups in the ${kind}` },
  { name: 'ServiceAccounts', type: 'string', priority: 1, description: `ServiceAccounts in the ${kind}` },
];

/** Kubernetes' rbac.SubjectsStrings: users, groups and `namespace/name` of service accounts, joined by ", ". */
function subjectCells(subjects: readonly Subject[] | null | undefined): string[] {
  const users: string[] = [];
  const groups: string[] = [];
  const serviceAccounts: string[] = [];
  for (const s of subjects ?? []) {
    if (s.kind === SubjectKind.User) users.push(s.name ?? '');
    else if (s.kind === SubjectKind.Group) groups.push(s.name ?? '');
    else if (s.kind === SubjectKind.ServiceAccount) serviceAccounts.push(`${s.namespace ?? ''}/${s.name ?? ''}`);
  }
  return [users.join(', '), groups.join(', '), serviceAccounts.join(', ')];
}

function bindingCells(obj: ApiObject): unknown[] {
  const b = obj as RoleBinding;
  return [`${b.roleRef?.kind ?? ''}/${b.roleRef?.name ?? ''}`, ageCell(obj), ...subjectCells(b.subjects)];
}

/** The escalation checks of Kubernetes' role and cluster role storages (403 with Kubernetes' message). */
function roleEscalationAdmission(resolver: RbacRuleResolver) {
  return async (req: AdmissionRequest): Promise<void> => {
    if (req.operation === 'DELETE') return;
    const role = req.object as Role | ClusterRole;
    const old = req.oldObject as Role | ClusterRole | undefined;
    if (req.operation === 'UPDATE' && old && onlyGcFieldsChanged(req.object, old)) return;
    const error = await checkRoleEscalation({ resolver, authorizer: req.authorizer, user: req.user, signal: req.signal }, req.request, role, old);
    if (error) throw error;
  };
}

/** The escalation checks of Kubernetes' binding storages: the referenced role's rules, or `bind` on it. */
function bindingEscalationAdmission(resolver: RbacRuleResolver) {
  return async (req: AdmissionRequest): Promise<void> => {
    if (req.operation === 'DELETE') return;
    if (req.operation === 'UPDATE' && req.oldObject && onlyGcFieldsChanged(req.object, req.oldObject)) return;
    const error = await checkBindingEscalation({ resolver, authorizer: req.authorizer, user: req.user, signal: req.signal }, req.request, req.object as RoleBinding);
    if (error) throw error;
  };
}

const nameField = (obj: ApiObject) => ({ 'metadata.name': obj.metadata?.name ?? '' });

interface RoleKinds {
  validate(obj: ApiObject): FieldError[];
  validateUpdate(obj: ApiObject, old: ApiObject): FieldError[];
}

function roleStrategy(resolver: RbacRuleResolver, kinds: RoleKinds): ResourceStrategy {
  return {
    validate: kinds.validate,
    validateUpdate: kinds.validateUpdate,
    admit: roleEscalationAdmission(resolver),
    // Kubernetes' RBAC strategies: PUT creates a missing object and needs no resourceVersion.
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: true,
    selectableFields: nameField,
    selectableFieldNames: ['metadata.name'],
    tableColumns: [createdAtColumn],
    tableCells: (obj) => [createdAtCell(obj)],
  };
}

function bindingStrategy(resolver: RbacRuleResolver, kind: string, kinds: RoleKinds): ResourceStrategy {
  return {
    // v1 defaulting (roleRef and User/Group subjects get the RBAC group), stored under the plat name.
    prepareForCreate: (obj) => setRbacBindingDefaults(obj as RoleBinding),
    prepareForUpdate: (obj) => setRbacBindingDefaults(obj as RoleBinding),
    validate: kinds.validate,
    validateUpdate: kinds.validateUpdate,
    admit: bindingEscalationAdmission(resolver),
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: true,
    servedAs: (obj, group) => renameRbacApiGroups(obj as RoleBinding, group) as ApiObject,
    selectableFields: nameField,
    selectableFieldNames: ['metadata.name'],
    tableColumns: bindingColumns(kind),
    tableCells: bindingCells,
  };
}

interface RbacKindSpec {
  kind: string;
  resource: string;
  namespaced: boolean;
  protobuf: ProtobufMessage;
  strategy: ResourceStrategy;
}

/** The OpenAPI of an RBAC kind under the plat name, or under Kubernetes' name with Kubernetes' definitions. */
function openApiOf(kind: string, group: string): OpenApiKind {
  return group === rbacGroup
    ? { definitionName: `io.plat.api.rbac.v1.${kind}`, definitions: rbacDefinitions }
    : { definitionName: `io.k8s.api.rbac.v1.${kind}`, definitions: kubernetesRbacDefinitions };
}

/** The four RBAC resources of `rbac.authorization.plat.io/v1`, answering (by default) to `rbac.authorization.k8s.io/v1` too. */
export function rbacResources(opts: RbacResourcesOptions): ResourceDefinition[] {
  const { resolver } = opts;
  const kinds: RbacKindSpec[] = [
    {
      kind: clusterRoleKind,
      resource: clusterRoleResource,
      namespaced: false,
      protobuf: clusterRoleMessage,
      strategy: roleStrategy(resolver, {
        validate: (obj) => validateClusterRole(obj as ClusterRole),
        validateUpdate: (obj, old) => validateClusterRoleUpdate(obj as ClusterRole, old as ClusterRole),
      }),
    },
    {
      kind: clusterRoleBindingKind,
      resource: clusterRoleBindingResource,
      namespaced: false,
      protobuf: bindingMessage,
      strategy: bindingStrategy(resolver, 'clusterRoleBinding', {
        validate: (obj) => validateClusterRoleBinding(obj as RoleBinding),
        validateUpdate: (obj, old) => validateClusterRoleBindingUpdate(obj as RoleBinding, old as RoleBinding),
      }),
    },
    {
      kind: roleKind,
      resource: roleResource,
      namespaced: true,
      protobuf: roleMessage,
      strategy: roleStrategy(resolver, {
        validate: (obj) => validateRole(obj as Role),
        validateUpdate: (obj, old) => validateRoleUpdate(obj as Role, old as Role),
      }),
    },
    {
      kind: roleBindingKind,
      resource: roleBindingResource,
      namespaced: true,
      protobuf: bindingMessage,
      strategy: bindingStrategy(resolver, 'roleBinding', {
        validate: (obj) => validateRoleBinding(obj as RoleBinding),
        validateUpdate: (obj, old) => validateRoleBindingUpdate(obj as RoleBinding, old as RoleBinding),
      }),
    },
  ];
  const groups = opts.kubernetesGroup === false ? [rbacGroup] : apiGroupNames(rbacGroup);
  return kinds.map(
    (k): ResourceDefinition => ({
      group: rbacGroup,
      groups,
      openApiAs: (group) => openApiOf(k.kind, group),
      version: rbacVersion,
      resource: k.resource,
      singular: k.kind.toLowerCase(),
      kind: k.kind,
      listKind: `${k.kind}List`,
      namespaced: k.namespaced,
      shortNames: [],
      categories: [],
      ...openApiOf(k.kind, rbacGroup),
      protobuf: k.protobuf,
      strategy: k.strategy,
    }),
  );
}
