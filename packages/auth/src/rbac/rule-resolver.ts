import { SubjectKind, clusterRoleKind, goQuote, rbacGroup, roleKind, type PolicyRule, type RoleRef, type Subject } from '@plat/api-model';
import type { UserInfo } from '../interface.js';
import type { RbacRuleSource } from './rule-source.js';
import { SubjectIndex, subjectAppliesTo, visitInNameOrder, type IndexedBinding, type RuleOrigin } from './subject-index.js';

export type { RuleOrigin };

/**
 * Which rules apply to a user in a namespace (Kubernetes' DefaultRuleResolver,
 * pkg/registry/rbac/validation/rule.go): the rules of every ClusterRoleBinding that names the
 * user, then, for a namespace, those of the RoleBindings there (a RoleBinding may reference a
 * ClusterRole: its rules then apply in that namespace only). A binding names the user by user
 * name, by one of the user's groups, or as a ServiceAccount (`system:serviceaccount:<ns>:<name>`,
 * the namespace defaulting to the binding's). Bindings are found through a SubjectIndex rebuilt
 * when the source's revision changes.
 */

/** A role a binding references that cannot be resolved; the rules found elsewhere still count. */
export class RbacRuleResolutionError extends Error {
  readonly code = 'ERR_RBAC_RULE_RESOLUTION';
  constructor(
    message: string,
    readonly reason: 'NotFound' | 'UnsupportedKind',
    readonly roleRef: RoleRef,
    /** The binding's namespace ('' for a ClusterRoleBinding). */
    readonly namespace: string,
  ) {
    super(message);
    this.name = 'RbacRuleResolutionError';
  }
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === SubjectKind.ServiceAccount) return `${s.kind} ${goQuote(`${s.name ?? ''}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind ?? ''} ${goQuote(s.name ?? '')}`;
}

/**
 * Kubernetes' binding describers, as they appear in the RBAC authorizer's reason:
 * `ClusterRoleBinding "admins" of ClusterRole "cluster-admin" to Group "ops"`,
 * `RoleBinding "readers/team-a" of Role "reader" to ServiceAccount "builder/team-a"`.
 */
export function describeRuleOrigin(origin: RuleOrigin): string {
  const { binding, subject, kind } = origin;
  const ns = binding.metadata?.namespace ?? '';
  const name = kind === 'RoleBinding' ? `${binding.metadata?.name ?? ''}/${ns}` : (binding.metadata?.name ?? '');
  return `${kind} ${goQuote(name)} of ${binding.roleRef?.kind ?? ''} ${goQuote(binding.roleRef?.name ?? '')} to ${describeSubject(subject, ns)}`;
}

/** Called per rule (with its origin) or per unresolvable role (with an error); return false to stop. */
export type RuleVisitor = (origin: RuleOrigin | undefined, rule: PolicyRule | undefined, error: RbacRuleResolutionError | undefined) => boolean;

export interface RoleReferenceRules {
  rules: readonly PolicyRule[];
  error?: RbacRuleResolutionError;
}

export class RbacRuleResolver {
  private index: SubjectIndex | undefined;

  constructor(private readonly source: RbacRuleSource) {}

  /** The source's revision: it changes with every change of the RBAC objects. */
  get revision(): number {
    return this.source.revision;
  }

  /** The index for the source as it is now. */
  private current(): SubjectIndex {
    const revision = this.source.revision;
    if (this.index?.revision !== revision) this.index = new SubjectIndex(revision, this.source);
    return this.index;
  }

  /**
   * Kubernetes' GetRoleReferenceRules: the rules of the role a binding references; a Role is
   * looked up in the binding's namespace. Not found is an error worded as Kubernetes' listers do
   * (`clusterrole.rbac.authorization.plat.io "x" not found`).
   */
  getRoleReferenceRules(roleRef: RoleRef, bindingNamespace: string): RoleReferenceRules {
    return resolveRoleRef(this.current(), roleRef, bindingNamespace);
  }

  /** Kubernetes' VisitRulesFor: cluster role bindings first, then the namespace's role bindings. */
  visitRulesFor(user: UserInfo, namespace: string, visitor: RuleVisitor): void {
    const index = this.current();
    if (!visitBindings(index, index.clusterRoleBindingsFor(user), user, '', visitor)) return;
    if (namespace !== '') visitBindings(index, index.roleBindingsFor(user, namespace), user, namespace, visitor);
  }

  /** Kubernetes' RulesFor: every rule that applies, and the roles that could not be resolved. */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: RbacRuleResolutionError[] } {
    const rules: PolicyRule[] = [];
    const errors: RbacRuleResolutionError[] = [];
    this.visitRulesFor(user, namespace, (_origin, rule, error) => {
      if (rule) rules.push(rule);
      if (error) errors.push(error);
      return true;
    });
    return { rules, errors };
  }
}

const noRules: readonly PolicyRule[] = [];
const noSubjects: readonly Subject[] = [];

function resolveRoleRef(index: SubjectIndex, roleRef: RoleRef, namespace: string): RoleReferenceRules {
  const name = roleRef.name ?? '';
  switch (roleRef.kind) {
    case roleKind: {
      const role = index.role(namespace, name);
      if (role) return { rules: role.rules ?? noRules };
      return { rules: noRules, error: new RbacRuleResolutionError(`role.${rbacGroup} ${goQuote(name)} not found`, 'NotFound', roleRef, namespace) };
    }
    case clusterRoleKind: {
      const role = index.clusterRole(name);
      if (role) return { rules: role.rules ?? noRules };
      return { rules: noRules, error: new RbacRuleResolutionError(`clusterrole.${rbacGroup} ${goQuote(name)} not found`, 'NotFound', roleRef, namespace) };
    }
    default:
      return {
        rules: noRules,
        error: new RbacRuleResolutionError(`unsupported role reference kind: ${goQuote(roleRef.kind ?? '')}`, 'UnsupportedKind', roleRef, namespace),
      };
  }
}

/** Visits the rules of the bindings that name the user; false when the visitor stopped. */
function visitBindings(
  index: SubjectIndex,
  lists: readonly (readonly IndexedBinding[])[],
  user: UserInfo,
  namespace: string,
  visitor: RuleVisitor,
): boolean {
  return visitInNameOrder(lists, (entry) => {
    const { kind, binding } = entry;
    // The index found the binding through one subject; the reason names the first that applies.
    const subjects = binding.subjects ?? noSubjects;
    let first = -1;
    for (let i = 0; i < subjects.length; i++) {
      const s = subjects[i];
      if (s && subjectAppliesTo(user, s, namespace)) {
        first = i;
        break;
      }
    }
    if (first < 0) return true;
    const { rules, error } = (entry.resolved ??= resolveRoleRef(index, binding.roleRef ?? {}, namespace)) as RoleReferenceRules;
    if (error) return visitor(undefined, undefined, error);
    // One origin object per binding and subject for this snapshot, so reasons can be remembered.
    const origins = (entry.origins ??= []);
    const origin = (origins[first] ??= { kind, binding, subject: subjects[first]! });
    for (let r = 0; r < rules.length; r++) {
      const rule = rules[r];
      if (rule && !visitor(origin, rule, undefined)) return false;
    }
    return true;
  });
}
