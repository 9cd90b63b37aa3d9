import {
  SubjectKind,
  renameRbacApiGroups,
  setRbacBindingDefaults,
  type ApiObject,
  type ClusterRole,
  type FieldError,
  type Role,
  type RoleBinding,
  type Subject,
} from '@plat/api-model';
import { checkBindingEscalation, checkRoleEscalation, type RbacRuleResolver } from '@plat/auth';
import { ageCell, ageColumn, type AdmissionRequest, type ResourceStrategy, type TableColumn } from '@plat/server';
import { onlyGcFieldsChanged } from '../gc-fields.js';

// The strategies the four RBAC kinds share (Kubernetes' pkg/registry/rbac/<kind>/strategy.go and
// the escalation checks of their policybased storages): roles and cluster roles alike, bindings
// and cluster role bindings alike.

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
    const error = await checkRoleEscalation({ resolver, authorizer: req.authorizer, user: req.user, scope: req.scope }, req.request, role, old);
    if (error) throw error;
  };
}

/** The escalation checks of Kubernetes' binding storages: the referenced role's rules, or `bind` on it. */
function bindingEscalationAdmission(resolver: RbacRuleResolver) {
  return async (req: AdmissionRequest): Promise<void> => {
    if (req.operation === 'DELETE') return;
    if (req.operation === 'UPDATE' && req.oldObject && onlyGcFieldsChanged(req.object, req.oldObject)) return;
    const error = await checkBindingEscalation({ resolver, authorizer: req.authorizer, user: req.user, scope: req.scope }, req.request, req.object as RoleBinding);
    if (error) throw error;
  };
}

const nameField = (obj: ApiObject) => ({ 'metadata.name': obj.metadata?.name ?? '' });

/** The kind's own validation, from @plat/api-model. */
export interface RbacValidation {
  validate(obj: ApiObject): FieldError[];
  validateUpdate(obj: ApiObject, old: ApiObject): FieldError[];
}

export function roleStrategy(resolver: RbacRuleResolver, kinds: RbacValidation): ResourceStrategy {
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

export function bindingStrategy(resolver: RbacRuleResolver, kind: string, kinds: RbacValidation): ResourceStrategy {
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
