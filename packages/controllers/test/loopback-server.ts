import { RbacPolicyStore, RbacRuleResolver, createBuiltinAuthorizer } from '@plat/auth';
import { customResourceDefinitionResource, namespaceResource, rbacResources } from '@plat/registry';
import { createApiServer, type ApiServer, type DynamicResources } from '@plat/server';
import type { Storage } from '@plat/storage';

/**
 * An API server over `storage` serving Namespaces, the RBAC kinds and CustomResourceDefinitions
 * (the custom resources through `dynamicResources`) as plat-apiserver does,
 * never listening: the controllers reach it through its loopback client. Nobody else can
 * authenticate; the built-in authorizer lets system:masters (the loopback user) do anything.
 */
export function loopbackServer(storage: Storage, dynamicResources?: DynamicResources): ApiServer {
  return createApiServer({
    storage,
    authenticator: { authenticate: async () => null },
    authorizer: createBuiltinAuthorizer(),
    resources: [namespaceResource(), ...rbacResources({ resolver: new RbacRuleResolver(new RbacPolicyStore()) }), customResourceDefinitionResource()],
    dynamicResources,
  });
}
