import * as assert from 'node:assert/strict';
import { RbacAuthorizer, RbacPolicyStore, RbacRuleResolver, createBuiltinAuthorizer } from '@plat/auth';
import { startControllers } from '@plat/controllers';
import { namespaceResource, rbacResources } from '@plat/registry';
import { createApiServer } from '@plat/server';
import { MemoryStorage } from '@plat/storage';

// The storage the API server serves from (memory here; SQLite or etcd3 in a real server).
const storage = new MemoryStorage();

// The RBAC objects as the authorizer and the escalation checks read them, kept current from storage.
const rbacPolicy = new RbacPolicyStore();
const resolver = new RbacRuleResolver(rbacPolicy);
const authorizer = new RbacAuthorizer(resolver);

// The server's REST handlers exist before anything listens: the controllers write through its
// loopback client, as system:apiserver in system:masters (validation, admission, managedFields).
const resources = [namespaceResource(), ...rbacResources({ resolver })];
const server = createApiServer({ storage, authenticator: { authenticate: async () => null }, authorizer: createBuiltinAuthorizer(), resources });

// Bootstrap policy reconciled, system namespaces created, RBAC objects listed, clusterrole
// aggregation and namespace deletion running. `resources` are the server's resource definitions
// (only group, version, resource, namespaced and storageGroup are read).
const controllers = await startControllers({ storage, client: server.loopback, rbacPolicy, resources });

// system:masters holds cluster-admin through the bootstrap binding; every authenticated user may discover APIs.
const ask = (groups: string[], path: string) =>
  authorizer.authorize({ user: { username: 'ada', groups }, verb: 'get', resourceRequest: false, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '', path });
assert.equal((await ask(['system:masters'], '/metrics')).decision, 'Allow');
assert.equal((await ask(['system:authenticated'], '/apis')).decision, 'Allow');
assert.equal((await ask(['system:authenticated'], '/metrics')).decision, 'NoOpinion');

// admin, edit and view are filled from the roles labelled to aggregate into them.
const view = await server.loopback.get('/apis/rbac.authorization.plat.io/v1/clusterroles/view');
console.log(JSON.stringify(view.rules), view.metadata?.managedFields?.map((m) => m.manager));

await controllers.stop();
await server.close();
await storage.close();
