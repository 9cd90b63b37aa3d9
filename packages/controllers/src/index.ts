export { silentControllerLogger, type ControllerLogger } from './controller-logger.js';
export { Reflector, type ReflectorHandlers, type ReflectorOptions } from '@plat/storage';
export { RbacPolicyFeed } from './rbac-policy-feed.js';
export { apiserverFieldManager, ensureSystemNamespaces, reconcileBootstrapPolicy, type BootstrapOptions } from './bootstrap-policy.js';
export { ClusterRoleAggregationController, aggregatedRules, aggregationFieldManager } from './clusterrole-aggregation-controller.js';
export { NamespaceController, type NamespaceControllerOptions, type NamespacedResource } from './namespace-controller.js';
export { namespacedResources, startControllers, type Controllers, type ControllersOptions, type ServedResource } from './start-controllers.js';
export { CustomResourceDefinitionController, type CustomResourceDefinitionControllerOptions } from './crd-controller.js';
