import type { FieldError } from './field-error.js';
import { renameRbacApiGroups, setRbacBindingDefaults, type ClusterRole, type ClusterRoleBinding, type Role, type RoleBinding } from './rbac.js';
import {
  roleRefsEqual,
  validateClusterRole,
  validateClusterRoleBinding,
  validateClusterRoleBindingUpdate,
  validateClusterRoleUpdate,
  validateRole,
  validateRoleBinding,
  validateRoleBindingUpdate,
  validateRoleUpdate,
} from './rbac-validation.js';

const text = (errs: readonly FieldError[]) => errs.map((e) => e.toString());
const k8s = 'rbac.authorization.k8s.io';
const plat = 'rbac.authorization.plat.io';

const role = (rules: Role['rules'], metadata: Role['metadata'] = { name: 'r', namespace: 'team-a' }): Role => ({ metadata, rules });
const clusterRole = (over: Partial<ClusterRole> = {}): ClusterRole => ({ metadata: { name: 'system:reader' }, rules: [], ...over });

describe('validateRole and validateClusterRole: rules', () => {
  it.each([
    ['a resource rule', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, [], []],
    ['a rule without verbs', { apiGroups: [''], resources: ['pods'] }, ['rules[0].verbs: Required value: verbs must contain at least one value'], null],
    [
      'a resource rule without groups and resources',
      { verbs: ['get'] },
      ['rules[0].apiGroups: Required value: resource rules must supply at least one api group', 'rules[0].resources: Required value: resource rules must supply at least one resource'],
      null,
    ],
    [
      'a non-resource rule',
      { verbs: ['get'], nonResourceURLs: ['/healthz', '/api/*'] },
      ['rules[0].nonResourceURLs: Invalid value: []string{"/healthz", "/api/*"}: namespaced rules cannot apply to non-resource URLs'],
      [],
    ],
    [
      'a rule that mixes resources and URLs',
      { verbs: ['get'], resourceNames: ['x'], nonResourceURLs: ['/metrics'] },
      [
        'rules[0].nonResourceURLs: Invalid value: []string{"/metrics"}: namespaced rules cannot apply to non-resource URLs',
        'rules[0].nonResourceURLs: Invalid value: []string{"/metrics"}: rules cannot apply to both regular resources and non-resource URLs',
      ],
      ['rules[0].nonResourceURLs: Invalid value: []string{"/metrics"}: rules cannot apply to both regular resources and non-resource URLs'],
    ],
    // Kubernetes dropped "resource names cannot apply to multiple resources": it is allowed.
    ['resourceNames across several resources', { verbs: ['get'], apiGroups: [''], resources: ['a', 'b'], resourceNames: ['n'] }, [], []],
  ])('%s', (_name, rule, roleErrors, clusterRoleErrors) => {
    expect(text(validateRole(role([rule])))).toEqual(roleErrors);
    expect(text(validateClusterRole(clusterRole({ rules: [rule] })))).toEqual(clusterRoleErrors ?? roleErrors);
  });

  it('indexes every rule', () => {
    const errs = validateRole(role([{ verbs: ['get'], apiGroups: [''], resources: ['x'] }, { apiGroups: [''], resources: ['y'] }]));
    expect(text(errs)).toEqual(['rules[1].verbs: Required value: verbs must contain at least one value']);
  });
});

describe('RBAC names (ValidateRBACName: a URL path segment)', () => {
  it.each([
    ['system:basic-user', []],
    ['Team A', []],
    ['..', ["metadata.name: Invalid value: \"..\": may not be '..'"]],
    ['a/b', ["metadata.name: Invalid value: \"a/b\": may not contain '/'"]],
    ['50%', ["metadata.name: Invalid value: \"50%\": may not contain '%'"]],
  ])('%j', (name, errors) => {
    expect(text(validateClusterRole(clusterRole({ metadata: { name } })))).toEqual(errors);
  });

  it('applies the name rule to generateName as Kubernetes does', () => {
    expect(text(validateClusterRole(clusterRole({ metadata: { generateName: '.', name: '.x' } })))).toEqual([
      "metadata.generateName: Invalid value: \".\": may not be '.'",
    ]);
  });

  it('requires a namespace on roles and forbids one on cluster roles', () => {
    expect(text(validateRole(role([], { name: 'r' })))).toEqual(['metadata.namespace: Required value']);
    expect(text(validateClusterRole(clusterRole({ metadata: { name: 'c', namespace: 'x' } })))).toEqual([
      'metadata.namespace: Forbidden: not allowed on this type',
    ]);
  });
});

describe('validateClusterRole: aggregationRule', () => {
  it('accepts label selectors', () => {
    const r = clusterRole({ aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.plat.io/aggregate-to-view': 'true' } }] } });
    expect(validateClusterRole(r)).toEqual([]);
  });

  it('requires a selector when the rule is present', () => {
    expect(text(validateClusterRole(clusterRole({ aggregationRule: {} })))).toEqual([
      'aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil',
    ]);
  });

  it('reports a bad operator as validation does and as the conversion does', () => {
    const r = clusterRole({ aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'k', operator: 'Near' }] }] } });
    expect(text(validateClusterRole(r))).toEqual([
      'aggregationRule.clusterRoleSelectors[0].matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator',
      'aggregationRule.clusterRoleSelectors[0]: Invalid value: "null": invalid label selector.',
    ]);
  });

  it('checks selector values on create, and on update only when the stored role had valid ones', () => {
    const bad = clusterRole({ aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'k', operator: 'In', values: ['no spaces'] }] }] } });
    const created = text(validateClusterRole(bad));
    expect(created[0]).toMatch(/^aggregationRule\.clusterRoleSelectors\[0\]\.matchExpressions\[0\]\.values\[0\]: Invalid value: "no spaces": a valid label must be/);
    expect(created[1]).toBe('aggregationRule.clusterRoleSelectors[0]: Invalid value: "null": invalid label selector.');
    const withVersion = (r: ClusterRole) => ({ ...r, metadata: { ...r.metadata, resourceVersion: '5' } });
    const good = clusterRole({ aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] } });
    // The stored role was valid: the new invalid value is reported.
    expect(validateClusterRoleUpdate(withVersion(bad), good).length).toBeGreaterThan(0);
    // The stored role already had it: only the conversion's complaint remains, as in Kubernetes.
    expect(text(validateClusterRoleUpdate(withVersion(bad), bad))).toEqual([
      'aggregationRule.clusterRoleSelectors[0]: Invalid value: "null": invalid label selector.',
    ]);
  });
});

describe('validateRoleBinding and validateClusterRoleBinding', () => {
  const binding = (over: Partial<RoleBinding> = {}): RoleBinding => ({
    metadata: { name: 'b', namespace: 'team-a' },
    roleRef: { apiGroup: k8s, kind: 'Role', name: 'reader' },
    subjects: [{ kind: 'User', apiGroup: k8s, name: 'alice' }],
    ...over,
  });

  it('accepts both names of the RBAC group in roleRef and User/Group subjects', () => {
    expect(validateRoleBinding(binding())).toEqual([]);
    expect(
      validateRoleBinding(binding({ roleRef: { apiGroup: plat, kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'Group', apiGroup: plat, name: 'devs' }] })),
    ).toEqual([]);
  });

  it('reports an empty roleRef as Kubernetes does for a missing one', () => {
    expect(text(validateRoleBinding(binding({ roleRef: undefined })))).toEqual([
      'roleRef.apiGroup: Unsupported value: "": supported values: "rbac.authorization.plat.io", "rbac.authorization.k8s.io"',
      'roleRef.kind: Unsupported value: "": supported values: "Role", "ClusterRole"',
      'roleRef.name: Required value',
    ]);
  });

  it('allows only ClusterRole in a cluster role binding', () => {
    const b = binding({ metadata: { name: 'b' }, roleRef: { apiGroup: k8s, kind: 'Role', name: 'r/x' } });
    expect(text(validateClusterRoleBinding(b))).toEqual([
      'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
      "roleRef.name: Invalid value: \"r/x\": may not contain '/'",
    ]);
  });

  it.each([
    ['a user without a name', { kind: 'User', apiGroup: k8s }, ['subjects[0].name: Required value'], null],
    ['a group in another API group', { kind: 'Group', apiGroup: 'example.com', name: 'g' }, ['subjects[0].apiGroup: Unsupported value: "example.com": supported values: "rbac.authorization.plat.io", "rbac.authorization.k8s.io"'], null],
    ['a service account of the binding namespace', { kind: 'ServiceAccount', name: 'builder' }, [], ['subjects[0].namespace: Required value']],
    ['a service account with an API group', { kind: 'ServiceAccount', apiGroup: k8s, name: 'builder', namespace: 'ci' }, ['subjects[0].apiGroup: Unsupported value: "rbac.authorization.k8s.io": supported values: ""'], null],
    [
      'a service account with a bad name',
      { kind: 'ServiceAccount', name: 'Builder', namespace: 'ci' },
      ['subjects[0].name: Invalid value: "Builder": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')'],
      null,
    ],
    ['an unknown kind', { kind: 'Robot', name: 'r2' }, ['subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"'], null],
  ])('%s', (_name, subject, namespacedErrors, clusterErrors) => {
    expect(text(validateRoleBinding(binding({ subjects: [subject] })))).toEqual(namespacedErrors);
    const cluster = binding({ metadata: { name: 'b' }, roleRef: { apiGroup: k8s, kind: 'ClusterRole', name: 'view' }, subjects: [subject] });
    expect(text(validateClusterRoleBinding(cluster))).toEqual(clusterErrors ?? namespacedErrors);
  });
});

describe('binding updates', () => {
  const old: ClusterRoleBinding = {
    metadata: { name: 'b', resourceVersion: '3' },
    roleRef: { apiGroup: plat, kind: 'ClusterRole', name: 'view' },
    subjects: [],
  };

  it('refuses a new roleRef with the message kubectl users know', () => {
    const next = { ...old, roleRef: { apiGroup: k8s, kind: 'ClusterRole', name: 'edit' } };
    expect(text(validateClusterRoleBindingUpdate(next, old))).toEqual([
      'roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef',
    ]);
  });

  it('treats the two names of the RBAC group as the same roleRef', () => {
    const next = { ...old, roleRef: { apiGroup: k8s, kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', apiGroup: k8s, name: 'bob' }] };
    expect(validateClusterRoleBindingUpdate(next, old)).toEqual([]);
    expect(roleRefsEqual({ apiGroup: 'x', kind: 'Role', name: 'a' }, { apiGroup: plat, kind: 'Role', name: 'a' })).toBe(false);
  });

  it('applies to role bindings and carries the metadata update rules', () => {
    const oldRb: RoleBinding = { ...old, metadata: { name: 'b', namespace: 'ns', resourceVersion: '3' } };
    const next: RoleBinding = { ...oldRb, metadata: { name: 'b', namespace: 'other', resourceVersion: '3' }, roleRef: { apiGroup: plat, kind: 'Role', name: 'view' } };
    expect(text(validateRoleBindingUpdate(next, oldRb))).toEqual([
      'metadata.namespace: Invalid value: "other": field is immutable',
      'roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.plat.io", Kind:"Role", Name:"view"}: cannot change roleRef',
    ]);
  });

  it('validates role updates as creates plus metadata rules', () => {
    const r = role([{ verbs: [] , apiGroups: [''], resources: ['x'] }], { name: 'r', namespace: 'ns' });
    expect(text(validateRoleUpdate(r, r))).toEqual([
      'rules[0].verbs: Required value: verbs must contain at least one value',
      'metadata.resourceVersion: Invalid value: "": must be specified for an update',
    ]);
  });
});

describe('the RBAC group in bindings', () => {
  it('defaults empty roleRef and User/Group apiGroups and stores the plat name', () => {
    const b: RoleBinding = {
      roleRef: { kind: 'ClusterRole', name: 'view' },
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'Group', apiGroup: k8s, name: 'devs' },
        { kind: 'ServiceAccount', name: 'ci', namespace: 'build' },
      ],
    };
    setRbacBindingDefaults(b);
    expect(b).toEqual({
      roleRef: { apiGroup: plat, kind: 'ClusterRole', name: 'view' },
      subjects: [
        { kind: 'User', apiGroup: plat, name: 'alice' },
        { kind: 'Group', apiGroup: plat, name: 'devs' },
        { kind: 'ServiceAccount', name: 'ci', namespace: 'build' },
      ],
    });
  });

  it('renames only RBAC group names, without changing its input', () => {
    const stored: RoleBinding = { roleRef: { apiGroup: plat, kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', apiGroup: plat, name: 'a' }, { kind: 'Robot', apiGroup: 'x.io', name: 'b' }] };
    const served = renameRbacApiGroups(stored, k8s);
    expect(served).toEqual({ roleRef: { apiGroup: k8s, kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', apiGroup: k8s, name: 'a' }, { kind: 'Robot', apiGroup: 'x.io', name: 'b' }] });
    expect(stored.roleRef!.apiGroup).toBe(plat);
    expect(renameRbacApiGroups(stored, plat)).toBe(stored);
  });
});
