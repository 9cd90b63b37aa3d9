import { SubjectKind, compareGoStrings, type ClusterRole, type PolicyRule, type Role, type RoleBinding, type Subject } from '@plat/api-model';
import { serviceAccountUsernamePrefix, type UserInfo } from '../interface.js';
import type { RbacRuleSource } from './rule-source.js';

export type BindingKind = 'ClusterRoleBinding' | 'RoleBinding';

/** A binding as the index holds it; `ordinal` orders bindings by name within their scope. */
export interface IndexedBinding {
  readonly ordinal: number;
  readonly kind: BindingKind;
  readonly binding: RoleBinding;
  /** Filled by the resolver: one origin object per subject (by index) that named a user, reused across decisions. */
  origins?: (RuleOrigin | undefined)[];
  /** Filled by the resolver: the referenced role's rules (or why not) in this snapshot. */
  resolved?: { readonly rules: readonly PolicyRule[]; readonly error?: Error };
}

/** Where a rule came from: the binding and its first subject that names the user. */
export interface RuleOrigin {
  readonly kind: BindingKind;
  readonly binding: RoleBinding;
  readonly subject: Subject;
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
      this.add(this.cluster, { ordinal, kind: 'ClusterRoleBinding', binding, origins: undefined, resolved: undefined }, '');
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
      bindings.sort(byName).forEach((binding, ordinal) => this.add(table, { ordinal, kind: 'RoleBinding', binding, origins: undefined, resolved: undefined }, ns));
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

  /**
   * The lists of cluster role bindings that may name the user: those of its name (or service
   * account) and those of each of its groups, each list in name order. A binding may be in
   * several; {@link visitInNameOrder} walks them as one.
   */
  clusterRoleBindingsFor(user: UserInfo): (readonly IndexedBinding[])[] {
    return candidateLists(this.cluster, user);
  }

  /** The same for the role bindings of a namespace. */
  roleBindingsFor(user: UserInfo, namespace: string): (readonly IndexedBinding[])[] {
    const table = this.namespaces.get(namespace);
    return table ? candidateLists(table, user) : [];
  }
}

function candidateLists(table: BindingTable, user: UserInfo): (readonly IndexedBinding[])[] {
  const lists: (readonly IndexedBinding[])[] = [];
  const own = table.byUser.get(user.username);
  if (own) lists.push(own);
  for (const group of user.groups) {
    const more = table.byGroup.get(group);
    if (more && !lists.includes(more)) lists.push(more);
  }
  return lists;
}

/**
 * Calls `visit` once per binding of the lists, in name order (as a plain scan of all bindings
 * would meet them), merging the sorted lists without copying them; stops when `visit` answers
 * false, and then answers false itself.
 */
export function visitInNameOrder(lists: readonly (readonly IndexedBinding[])[], visit: (entry: IndexedBinding) => boolean): boolean {
  if (lists.length === 1) {
    for (const entry of lists[0]!) if (!visit(entry)) return false;
    return true;
  }
  const heads = new Array<number>(lists.length).fill(0);
  for (;;) {
    let next: IndexedBinding | undefined;
    for (let l = 0; l < lists.length; l++) {
      const entry = lists[l]![heads[l]!];
      if (entry && (!next || entry.ordinal < next.ordinal)) next = entry;
    }
    if (!next) return true;
    // Every list holding this binding moves past it, so it is visited once.
    for (let l = 0; l < lists.length; l++) if (lists[l]![heads[l]!] === next) heads[l]!++;
    if (!visit(next)) return false;
  }
}
