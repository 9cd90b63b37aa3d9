import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from '@plat/api-model';

/**
 * What the RBAC rule resolver reads (Kubernetes' RoleGetter, RoleBindingLister, ClusterRoleGetter
 * and ClusterRoleBindingLister, as one interface): the four kinds as they are now, kept current
 * by the caller, typically from a watch of each resource. `revision` must change whenever any
 * object was added, changed or removed; the resolver rebuilds its subject index when it does.
 */
export interface RbacRuleSource {
  readonly revision: number;
  listClusterRoles(): Iterable<ClusterRole>;
  listClusterRoleBindings(): Iterable<ClusterRoleBinding>;
  listRoles(): Iterable<Role>;
  listRoleBindings(): Iterable<RoleBinding>;
}

export type RbacKind = 'ClusterRole' | 'ClusterRoleBinding' | 'Role' | 'RoleBinding';

export interface RbacObjects {
  clusterRoles?: Iterable<ClusterRole>;
  clusterRoleBindings?: Iterable<ClusterRoleBinding>;
  roles?: Iterable<Role>;
  roleBindings?: Iterable<RoleBinding>;
}

type RbacObject = ClusterRole | Role | RoleBinding;

const objectKey = (obj: RbacObject): string => `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;

/**
 * An in-memory RbacRuleSource that the caller keeps current: `upsert` for ADDED and MODIFIED
 * watch events, `delete` for DELETED, `replace` after a (re-)list. Objects are keyed by namespace
 * and name; each change increases `revision`. It keeps references to the objects it is given:
 * do not change them afterwards.
 */
export class RbacPolicyStore implements RbacRuleSource {
  private rev = 0;
  private readonly objects: Record<RbacKind, Map<string, RbacObject>> = {
    ClusterRole: new Map(),
    ClusterRoleBinding: new Map(),
    Role: new Map(),
    RoleBinding: new Map(),
  };

  constructor(initial: RbacObjects = {}) {
    this.replace('ClusterRole', initial.clusterRoles ?? []);
    this.replace('ClusterRoleBinding', initial.clusterRoleBindings ?? []);
    this.replace('Role', initial.roles ?? []);
    this.replace('RoleBinding', initial.roleBindings ?? []);
  }

  get revision(): number {
    return this.rev;
  }

  upsert(kind: RbacKind, obj: RbacObject): void {
    this.objects[kind].set(objectKey(obj), obj);
    this.rev++;
  }

  delete(kind: RbacKind, obj: RbacObject): void {
    if (this.objects[kind].delete(objectKey(obj))) this.rev++;
  }

  replace(kind: RbacKind, objs: Iterable<RbacObject>): void {
    const map = this.objects[kind];
    map.clear();
    for (const obj of objs) map.set(objectKey(obj), obj);
    this.rev++;
  }

  listClusterRoles(): Iterable<ClusterRole> {
    return this.objects.ClusterRole.values();
  }

  listClusterRoleBindings(): Iterable<ClusterRoleBinding> {
    return this.objects.ClusterRoleBinding.values() as Iterable<ClusterRoleBinding>;
  }

  listRoles(): Iterable<Role> {
    return this.objects.Role.values();
  }

  listRoleBindings(): Iterable<RoleBinding> {
    return this.objects.RoleBinding.values() as Iterable<RoleBinding>;
  }
}
