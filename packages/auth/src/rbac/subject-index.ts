import { SubjectKind, compareGoStrings, type ClusterRole, type Role, type RoleBinding, type Subject } from '@plat/api-model';
import { serviceAccountUsernamePrefix, type UserInfo } from '../interface.js';
import type { RbacRuleSource } from './rule-source.js';

export type BindingKind = 'ClusterRoleBinding' | 'RoleBinding';

/** A binding as the index holds it; `ordinal` orders bindings by name within their scope. */
export interface IndexedBinding {
  readonly ordinal: number;
  readonly kind: BindingKind;
  readonly binding: RoleBinding;
}

/** Bindings of one scope (the cluster, or one namespace) by the users and groups they name. */
interface BindingTable {
  readonly byUser: Map<string, IndexedBinding[]>;
  readonly byGroup: Map<string, IndexedBinding[]>;
}

const emptyTable = (): BindingTable => ({ byUser: new Map(), byGroup: new Map() });

function push(map: Map<string, IndexedBinding[]>, key: string, entry: IndexedBinding): void {
  const list = map.get(key);
  if (!list) map.set(key, [entry]);
  else if (list[list.length - 1] !== entry) list.push(entry);
}

/**
 * The username a subject stands for, for indexing: a User's name, or a ServiceAccount's
 * `system:serviceaccount:<ns>:<name>` (its namespace defaults to the binding's, as in Kubernetes'
 * appliesToUser). Undefined for a Group, an unknown kind, or a service account without a namespace.
 */
function subjectUsername(subject: Subject, bindingNamespace: string): string | undefined {
  if (subject.kind === SubjectKind.User) return subject.name ?? '';
  if (subject.kind !== SubjectKind.ServiceAccount) return undefined;
  const ns = subject.namespace || bindingNamespace;
  return ns ? `${serviceAccountUsernamePrefix}${ns}:${subject.name ?? ''}` : undefined;
}

/** Kubernetes' appliesToUser: whether one subject of a binding in `namespace` names the user. */
export function subjectAppliesTo(user: UserInfo, subject: Subject, namespace: string): boolean {
  switch (subject.kind) {
    case SubjectKind.User:
      return user.username === (subject.name ?? '');
    case SubjectKind.Group:
      return user.groups.includes(subject.name ?? '');
    case SubjectKind.ServiceAccount:
      return subjectUsername(subject, namespace) === user.username;
    default:
      return false;
  }
}

const byName = (a: RoleBinding, b: RoleBinding): number => compareGoStrings(a.metadata?.name ?? '', b.metadata?.name ?? '');

/**
 * A snapshot of a rule source arranged for decisions: roles by name, and bindings by the user and
 * group names their subjects carry (service accounts under their username), so that finding the
 * bindings of a user costs a few map lookups however many bindings exist. Built once per source
 * revision.
 */
export class SubjectIndex {
  private readonly clusterRoles = new Map<string, ClusterRole>();
  private readonly roles = new Map<string, Role>();
  private readonly cluster = emptyTable();
  private readonly namespaces = new Map<string, BindingTable>();

  constructor(readonly revision: number, source: RbacRuleSource) {
    for (const r of source.listClusterRoles()) this.clusterRoles.set(r.metadata?.name ?? '', r);
    for (const r of source.listRoles()) this.roles.set(`${r.metadata?.namespace ?? ''}/${r.metadata?.name ?? ''}`, r);
    [...source.listClusterRoleBindings()].sort(byName).forEach((binding, ordinal) => {
      this.add(this.cluster, { ordinal, kind: 'ClusterRoleBinding', binding }, '');
    });
    const perNamespace = new Map<string, RoleBinding[]>();
    for (const b of source.listRoleBindings()) {
      const ns = b.metadata?.namespace ?? '';
      const list = perNamespace.get(ns);
      if (list) list.push(b);
      else perNamespace.set(ns, [b]);
    }
    for (const [ns, bindings] of perNamespace) {
      const table = emptyTable();
      this.namespaces.set(ns, table);
      bindings.sort(byName).forEach((binding, ordinal) => this.add(table, { ordinal, kind: 'RoleBinding', binding }, ns));
    }
  }

  private add(table: BindingTable, entry: IndexedBinding, namespace: string): void {
    for (const subject of entry.binding.subjects ?? []) {
      if (!subject) continue;
      if (subject.kind === SubjectKind.Group) {
        push(table.byGroup, subject.name ?? '', entry);
        continue;
      }
      const username = subjectUsername(subject, namespace);
      if (username !== undefined) push(table.byUser, username, entry);
    }
  }

  clusterRole(name: string): ClusterRole | undefined {
    return this.clusterRoles.get(name);
  }

  role(namespace: string, name: string): Role | undefined {
    return this.roles.get(`${namespace}/${name}`);
  }

  /** The cluster role bindings that may name the user (by name, group or service account), in name order. */
  clusterRoleBindingsFor(user: UserInfo): readonly IndexedBinding[] {
    return bindingsFor(this.cluster, user);
  }

  /** The role bindings of the namespace that may name the user, in name order. */
  roleBindingsFor(user: UserInfo, namespace: string): readonly IndexedBinding[] {
    const table = this.namespaces.get(namespace);
    return table ? bindingsFor(table, user) : [];
  }
}

function bindingsFor(table: BindingTable, user: UserInfo): readonly IndexedBinding[] {
  const lists: (readonly IndexedBinding[])[] = [];
  const own = table.byUser.get(user.username);
  if (own) lists.push(own);
  for (const group of user.groups) {
    const more = table.byGroup.get(group);
    if (more) lists.push(more);
  }
  if (lists.length <= 1) return lists[0] ?? [];
  // Several subjects led here: one visit per binding, in name order as a plain scan would go.
  return [...new Set(lists.flat())].sort((a, b) => a.ordinal - b.ordinal);
}
