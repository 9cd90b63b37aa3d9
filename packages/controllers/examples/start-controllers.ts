import * as assert from 'node:assert/strict';
import { RbacAuthorizer, RbacPolicyStore, RbacRuleResolver } from '@plat/auth';
import { startControllers } from '@plat/controllers';
import { MemoryStorage } from '@plat/storage';

// The storage the API server serves from (memory here; SQLite or etcd3 in a real server).
const storage = new MemoryStorage();

// The RBAC objects as the authorizer and the escalation checks read them, kept current from storage.
const rbacPolicy = new RbacPolicyStore();
const authorizer = new RbacAuthorizer(new RbacRuleResolver(rbacPolicy));

// Bootstrap policy reconciled, system namespaces created, RBAC objects listed, clusterrole
// aggregation and namespace deletion running. `resources` are the server's resource definitions
// (only group, resource, namespaced and storageGroup are read).
const controllers = await startControllers({
  storage,
  rbacPolicy,
  resources: [{ group: 'rbac.authorization.plat.io', resource: 'roles', namespaced: true }],
});

// system:masters holds cluster-admin through the bootstrap binding; every authenticated user may discover APIs.
const ask = (groups: string[], path: string) =>
  authorizer.authorize({ user: { username: 'ada', groups }, verb: 'get', resourceRequest: false, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '', path });
assert.equal((await ask(['system:masters'], '/metrics')).decision, 'Allow');
assert.equal((await ask(['system:authenticated'], '/apis')).decision, 'Allow');
assert.equal((await ask(['system:authenticated'], '/metrics')).decision, 'NoOpinion');

// admin, edit and view are filled from the roles labelled to aggregate into them.
const view = await storage.get('/rbac.authorization.plat.io/clusterroles/view');
console.log(JSON.stringify(view.rules));

await controllers.stop();
await storage.close();
