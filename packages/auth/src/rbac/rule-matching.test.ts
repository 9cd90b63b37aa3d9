import type { PolicyRule } from '@plat/api-model';
import type { Attributes } from '../interface.js';
import { ruleAllows, rulesAllow } from './rule-matching.js';

const user = { username: 'alice', groups: [] };

function request(verb: string, apiGroup: string, resource: string, opts: { subresource?: string; name?: string; namespace?: string } = {}): Attributes {
  return {
    user,
    verb,
    resourceRequest: true,
    apiGroup,
    apiVersion: 'v1',
    resource,
    subresource: opts.subresource ?? '',
    namespace: opts.namespace ?? '',
    name: opts.name ?? '',
    path: '',
  };
}

function url(verb: string, path: string): Attributes {
  return { user, verb, resourceRequest: false, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '', path };
}

const ctb = 'certificates.plat.io';

describe('RBAC rule matching (Kubernetes RuleAllows)', () => {
  // [case, rule, request, allowed]
  const table: [string, PolicyRule, Attributes, boolean][] = [
    ['exact verb, group and resource', { verbs: ['get'], apiGroups: [ctb], resources: ['clustertrustbundles'] }, request('get', ctb, 'clustertrustbundles'), true],
    ['another verb', { verbs: ['get'], apiGroups: [ctb], resources: ['clustertrustbundles'] }, request('list', ctb, 'clustertrustbundles'), false],
    ['verb *', { verbs: ['*'], apiGroups: [ctb], resources: ['clustertrustbundles'] }, request('deletecollection', ctb, 'clustertrustbundles'), true],
    ['another group', { verbs: ['get'], apiGroups: [ctb], resources: ['clustertrustbundles'] }, request('get', 'certificates.example.io', 'clustertrustbundles'), false],
    ['group *', { verbs: ['get'], apiGroups: ['*'], resources: ['clustertrustbundles'] }, request('get', 'example.io', 'clustertrustbundles'), true],
    ['the core group is the empty string', { verbs: ['get'], apiGroups: [''], resources: ['namespaces'] }, request('get', '', 'namespaces'), true],
    ['the core group does not match a named group', { verbs: ['get'], apiGroups: [''], resources: ['namespaces'] }, request('get', ctb, 'namespaces'), false],
    ['resource *', { verbs: ['get'], apiGroups: [ctb], resources: ['*'] }, request('get', ctb, 'anything'), true],
    ['resource * covers subresources', { verbs: ['get'], apiGroups: [ctb], resources: ['*'] }, request('get', ctb, 'clustertrustbundles', { subresource: 'status' }), true],
    ['a resource does not cover its subresources', { verbs: ['get'], apiGroups: [ctb], resources: ['clustertrustbundles'] }, request('get', ctb, 'clustertrustbundles', { subresource: 'status' }), false],
    ['resource/subresource', { verbs: ['get'], apiGroups: [ctb], resources: ['clustertrustbundles/status'] }, request('get', ctb, 'clustertrustbundles', { subresource: 'status' }), true],
    ['resource/subresource does not cover the resource', { verbs: ['get'], apiGroups: [ctb], resources: ['clustertrustbundles/status'] }, request('get', ctb, 'clustertrustbundles'), false],
    ['*/subresource covers it on every resource', { verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, request('get', 'apps', 'deployments', { subresource: 'scale' }), true],
    ['*/subresource covers no other subresource', { verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, request('get', 'apps', 'deployments', { subresource: 'status' }), false],
    ['*/subresource does not cover the resource', { verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, request('get', 'apps', 'deployments'), false],
    ['*/subresource does not cover a longer subresource with that suffix', { verbs: ['get'], apiGroups: ['*'], resources: ['*/log'] }, request('get', '', 'pods', { subresource: 'blog' }), false],
    ['a listed name', { verbs: ['get'], apiGroups: [ctb], resources: ['clustertrustbundles'], resourceNames: ['a', 'b'] }, request('get', ctb, 'clustertrustbundles', { name: 'b' }), true],
    ['an unlisted name', { verbs: ['get'], apiGroups: [ctb], resources: ['clustertrustbundles'], resourceNames: ['a'] }, request('get', ctb, 'clustertrustbundles', { name: 'c' }), false],
    ['names restrict requests without a name (list)', { verbs: ['list'], apiGroups: [ctb], resources: ['clustertrustbundles'], resourceNames: ['a'] }, request('list', ctb, 'clustertrustbundles'), false],
    ['no names: every name', { verbs: ['get'], apiGroups: [ctb], resources: ['clustertrustbundles'], resourceNames: [] }, request('get', ctb, 'clustertrustbundles', { name: 'z' }), true],
    ['names are literal: example.com/* is a name', { verbs: ['attest'], apiGroups: [ctb], resources: ['signers'], resourceNames: ['example.com/*'] }, request('attest', ctb, 'signers', { name: 'example.com/*' }), true],
    ['names are literal: example.com/* is not a pattern', { verbs: ['attest'], apiGroups: [ctb], resources: ['signers'], resourceNames: ['example.com/*'] }, request('attest', ctb, 'signers', { name: 'example.com/foo' }), false],
    ['a resource rule never covers a URL', { verbs: ['get'], apiGroups: ['*'], resources: ['*'] }, url('get', '/healthz'), false],
    ['a URL rule never covers a resource', { verbs: ['get'], nonResourceURLs: ['*'] }, request('get', ctb, 'clustertrustbundles'), false],
    ['exact URL', { verbs: ['get'], nonResourceURLs: ['/healthz'] }, url('get', '/healthz'), true],
    ['exact URL, trailing slash differs', { verbs: ['get'], nonResourceURLs: ['/healthz'] }, url('get', '/healthz/'), false],
    ['URL *', { verbs: ['get'], nonResourceURLs: ['*'] }, url('get', '/anything/at/all'), true],
    ['URL prefix', { verbs: ['get'], nonResourceURLs: ['/apis/*'] }, url('get', '/apis/certificates.plat.io/v1alpha1'), true],
    ['URL prefix needs its slash', { verbs: ['get'], nonResourceURLs: ['/apis/*'] }, url('get', '/apis'), false],
    ['URL prefix without slash', { verbs: ['get'], nonResourceURLs: ['/api*'] }, url('get', '/apis'), true],
    ['every trailing * is trimmed', { verbs: ['get'], nonResourceURLs: ['/healthz**'] }, url('get', '/healthz/etcd'), true],
    ['URL verb', { verbs: ['get'], nonResourceURLs: ['/metrics'] }, url('post', '/metrics'), false],
    ['a rule without verbs covers nothing', { apiGroups: ['*'], resources: ['*'] }, request('get', ctb, 'clustertrustbundles'), false],
    // Both names of a group plat serves under the Kubernetes name too are one group.
    ['a rule on rbac.authorization.k8s.io covers the plat group', { verbs: ['get'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'] }, request('get', 'rbac.authorization.plat.io', 'roles'), true],
    ['a rule on rbac.authorization.plat.io covers the Kubernetes name', { verbs: ['bind'], apiGroups: ['rbac.authorization.plat.io'], resources: ['clusterroles'] }, request('bind', 'rbac.authorization.k8s.io', 'clusterroles'), true],
    ['a rule on authorization.k8s.io covers the review resources', { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectrulesreviews'] }, request('create', 'authorization.plat.io', 'selfsubjectrulesreviews'), true],
    ['a rule on certificates.k8s.io covers the plat group', { verbs: ['get'], apiGroups: ['certificates.k8s.io'], resources: ['clustertrustbundles'] }, request('get', ctb, 'clustertrustbundles'), true],
    ['a rule on certificates.plat.io covers the Kubernetes name', { verbs: ['list'], apiGroups: [ctb], resources: ['clustertrustbundles'] }, request('list', 'certificates.k8s.io', 'clustertrustbundles'), true],
    ['attest on a certificates.k8s.io signer covers the check plat asks', { verbs: ['attest'], apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: ['example.com/*'] }, request('attest', ctb, 'signers', { name: 'example.com/*' }), true],
  ];

  it.each(table)('%s', (_name, rule, attrs, allowed) => {
    expect(ruleAllows(attrs, rule)).toBe(allowed);
  });

  it('tolerates null lists as Go tolerates nil slices', () => {
    expect(ruleAllows(request('get', ctb, 'x'), { verbs: null, apiGroups: null, resources: null, resourceNames: null })).toBe(false);
    expect(ruleAllows(request('get', ctb, 'x'), { verbs: ['get'], apiGroups: [ctb], resources: ['x'], resourceNames: null })).toBe(true);
  });

  it('allows when any rule of a list does', () => {
    const rules: PolicyRule[] = [{ verbs: ['get'], nonResourceURLs: ['/version'] }, { verbs: ['list'], apiGroups: [ctb], resources: ['clustertrustbundles'] }];
    expect(rulesAllow(request('list', ctb, 'clustertrustbundles'), rules)).toBe(true);
    expect(rulesAllow(request('watch', ctb, 'clustertrustbundles'), rules)).toBe(false);
  });
});
