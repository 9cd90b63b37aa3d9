/** The CustomResourceDefinition API: plat's group name, and Kubernetes' that it also answers to. */
export const apiextensionsGroup = 'apiextensions.plat.io';
export const apiextensionsKubernetesGroup = 'apiextensions.k8s.io';
export const customResourceDefinitionsResource = 'customresourcedefinitions';
export const customResourceDefinitionKind = 'CustomResourceDefinition';
/**
 * The finalizer a CustomResourceDefinition gets when its deletion starts: its custom resources
 * are deleted before it goes (Kubernetes' apiextensions CustomResourceCleanupFinalizer, whose
 * name clients know, so it keeps Kubernetes' spelling).
 */
export const customResourceCleanupFinalizer = 'customresourcecleanup.apiextensions.k8s.io';
