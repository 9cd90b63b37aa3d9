import type { Attributes, UserInfo } from './interface.js';
import { createNodeAuthorizer, nodeIdentity } from './node-authorizer.js';

const request = (user: UserInfo, verb: string, apiGroup: string, resource: string): Attributes => ({
  user,
  verb,
  resourceRequest: true,
  apiGroup,
  apiVersion: 'v1',
  resource,
  subresource: '',
  namespace: '',
  name: '',
  path: '',
});

const node = (username: string, ...groups: string[]): UserInfo => ({ username, groups: [...groups, 'system:authenticated'] });

describe('Node authorizer', () => {
  const authorizer = createNodeAuthorizer();

  it('identifies nodes by the system:nodes group and the system:node: name prefix together', () => {
    expect(nodeIdentity(node('system:node:worker-1', 'system:nodes'))).toBe('worker-1');
    expect(nodeIdentity(node('system:node:', 'system:nodes'))).toBe('');
    expect(nodeIdentity(node('system:node:worker-1'))).toBeUndefined();
    expect(nodeIdentity(node('worker-1', 'system:nodes'))).toBeUndefined();
  });

  it('has no opinion on anyone but nodes', async () => {
    expect(await authorizer.authorize(request(node('alice', 'system:masters'), 'create', 'authorization.plat.io', 'subjectaccessreviews'))).toEqual({
      decision: 'NoOpinion',
      reason: '',
    });
  });

  it('says which node user it could not place', async () => {
    expect(await authorizer.authorize(request(node('system:node:', 'system:nodes'), 'get', 'certificates.plat.io', 'clustertrustbundles'))).toEqual({
      decision: 'NoOpinion',
      reason: 'unknown node for user "system:node:"',
    });
  });

  it('lets nodes create access reviews and read ClusterTrustBundles, and nothing else plat serves', async () => {
    const worker = node('system:node:worker-1', 'system:nodes');
    expect((await authorizer.authorize(request(worker, 'create', 'authorization.plat.io', 'subjectaccessreviews'))).decision).toBe('Allow');
    expect((await authorizer.authorize(request(worker, 'watch', 'certificates.plat.io', 'clustertrustbundles'))).decision).toBe('Allow');
    for (const attrs of [
      request(worker, 'create', 'certificates.plat.io', 'clustertrustbundles'),
      request(worker, 'attest', 'certificates.plat.io', 'signers'),
      request(worker, 'create', 'rbac.authorization.plat.io', 'clusterrolebindings'),
    ]) {
      expect(await authorizer.authorize(attrs)).toEqual({ decision: 'NoOpinion', reason: '' });
    }
  });

  it('lists no rules: for nodes its answer is incomplete, as Kubernetes\' RulesFor', () => {
    expect(authorizer.rulesFor!(node('system:node:worker-1', 'system:nodes'), '')).toEqual({
      resourceRules: [],
      nonResourceRules: [],
      incomplete: true,
      evaluationError: 'node authorizer does not support user rule resolution',
    });
    expect(authorizer.rulesFor!(node('ada'), '').incomplete).toBe(false);
  });
});
