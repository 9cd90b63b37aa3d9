import { validateClusterRole, validateClusterRoleBinding, type ClusterRole, type ClusterRoleBinding } from '@plat/api-model';
import { autoupdateAnnotation, bootstrapClusterRoleBindings, bootstrapClusterRoles } from './bootstrap-policy.js';
import { computeReconciledRole, computeReconciledRoleBinding } from './reconciliation.js';

const expectedRole = (): ClusterRole => ({
  metadata: { name: 'r', labels: { a: '1' }, annotations: { [autoupdateAnnotation]: 'true' } },
  rules: [{ verbs: ['get', 'list'], apiGroups: ['certificates.plat.io'], resources: ['clustertrustbundles'] }],
});

describe('computeReconciledRole (Kubernetes\' reconciliation)', () => {
  it('creates a missing role as expected', () => {
    const r = computeReconciledRole(undefined, expectedRole(), false);
    expect(r.operation).toBe('Create');
    expect(r.role).toEqual(expectedRole());
  });

  it('adds the rules an existing role misses and keeps what it has', () => {
    const existing: ClusterRole = {
      metadata: { name: 'r', labels: { b: '2' } },
      rules: [{ verbs: ['get'], apiGroups: ['certificates.plat.io'], resources: ['clustertrustbundles'] }, { verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
    };
    const r = computeReconciledRole(existing, expectedRole(), false);
    expect(r.operation).toBe('Update');
    expect(r.missingRules).toEqual([{ verbs: ['list'], apiGroups: ['certificates.plat.io'], resources: ['clustertrustbundles'] }]);
    expect(r.extraRules).toEqual([{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);
    expect(r.role.rules).toEqual([...existing.rules!, { verbs: ['list'], apiGroups: ['certificates.plat.io'], resources: ['clustertrustbundles'] }]);
    // Labels and annotations: the expected ones are added, existing values win.
    expect(r.role.metadata).toEqual({ name: 'r', labels: { a: '1', b: '2' }, annotations: { [autoupdateAnnotation]: 'true' } });
    expect(r.protected).toBe(false);
  });

  it('sets exactly the expected rules with removeExtraPermissions', () => {
    const existing: ClusterRole = { metadata: { name: 'r' }, rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] };
    const r = computeReconciledRole(existing, expectedRole(), true);
    expect(r.operation).toBe('Update');
    expect(r.role.rules).toEqual(expectedRole().rules);
  });

  it('changes nothing when the existing role covers the expected one, also under the other group name', () => {
    const existing = expectedRole();
    existing.rules = [{ verbs: ['*'], apiGroups: ['certificates.plat.io'], resources: ['clustertrustbundles'] }];
    expect(computeReconciledRole(existing, expectedRole(), false).operation).toBe('None');
    const rbac: ClusterRole = { metadata: { name: 'x' }, rules: [{ verbs: ['get'], apiGroups: ['rbac.authorization.plat.io'], resources: ['roles'] }] };
    const k8sNamed: ClusterRole = { metadata: { name: 'x' }, rules: [{ verbs: ['get'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'] }] };
    expect(computeReconciledRole(k8sNamed, rbac, false).operation).toBe('None');
  });

  it('reports a protected role (autoupdate "false") with what it misses', () => {
    const existing: ClusterRole = { metadata: { name: 'r', labels: { a: '1' }, annotations: { [autoupdateAnnotation]: 'false' } }, rules: [] };
    const r = computeReconciledRole(existing, expectedRole(), false);
    expect(r.protected).toBe(true);
    expect(r.operation).toBe('Update');
    expect(r.missingRules).toHaveLength(2);
  });

  it('keeps the aggregated rules of an aggregated role and adds missing selectors', () => {
    const expected: ClusterRole = { metadata: { name: 'admin' }, rules: [], aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'true' } }] } };
    const existing: ClusterRole = {
      metadata: { name: 'admin' },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { y: 'true' } }] },
    };
    const r = computeReconciledRole(existing, expected, false);
    expect(r.extraRules).toEqual([]);
    expect(r.role.rules).toEqual(existing.rules);
    expect(r.role.aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { y: 'true' } }, { matchLabels: { x: 'true' } }] });
    // A role that is not expected to aggregate loses its aggregation.
    const plain = computeReconciledRole(existing, { metadata: { name: 'admin' }, rules: existing.rules }, false);
    expect(plain.role.aggregationRule).toBeUndefined();
    expect(plain.operation).toBe('Update');
  });
});

describe('computeReconciledRoleBinding', () => {
  const expected = (): ClusterRoleBinding => ({
    metadata: { name: 'b' },
    roleRef: { apiGroup: 'rbac.authorization.plat.io', kind: 'ClusterRole', name: 'r' },
    subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.plat.io', name: 'system:authenticated' }],
  });

  it('adds missing subjects and keeps others; either group name is the same subject', () => {
    const existing: ClusterRoleBinding = {
      ...expected(),
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.plat.io', name: 'ada' }],
    };
    const r = computeReconciledRoleBinding(existing, expected(), false);
    expect(r.operation).toBe('Update');
    expect(r.binding.subjects).toEqual([...existing.subjects!, ...expected().subjects!]);
    expect(r.extraSubjects).toEqual(existing.subjects);
    const same: ClusterRoleBinding = { ...expected(), subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:authenticated' }] };
    expect(computeReconciledRoleBinding(same, expected(), false).operation).toBe('None');
  });

  it('recreates a binding whose roleRef differs', () => {
    const existing = { ...expected(), roleRef: { apiGroup: 'rbac.authorization.plat.io', kind: 'ClusterRole', name: 'other' } };
    expect(computeReconciledRoleBinding(existing, expected(), false).operation).toBe('Recreate');
  });

  it('stomps to the expected subjects with removeExtraSubjects', () => {
    const existing: ClusterRoleBinding = { ...expected(), subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.plat.io', name: 'ada' }] };
    expect(computeReconciledRoleBinding(existing, expected(), true).binding.subjects).toEqual(expected().subjects);
  });
});

describe('bootstrap policy', () => {
  it('is valid, each binding naming a bootstrap role of the same name', () => {
    const roles = bootstrapClusterRoles();
    for (const r of roles) expect(validateClusterRole(r)).toEqual([]);
    for (const b of bootstrapClusterRoleBindings()) {
      expect(validateClusterRoleBinding(b)).toEqual([]);
      expect(roles.map((r) => r.metadata?.name)).toContain(b.roleRef?.name);
      expect(b.metadata?.name).toBe(b.roleRef?.name);
    }
    expect(roles.map((r) => r.metadata?.name)).toEqual(expect.arrayContaining(['cluster-admin', 'admin', 'edit', 'view', 'system:basic-user', 'system:discovery']));
  });
});
