import { NamespacePhase, isStatusError, namespacesResource, newForbidden, newNotFound, type Namespace } from '@plat/api-model';
import { objectKey, type OperationOptions, type Storage } from '@plat/storage';
import type { ResourceDefinition } from '../resource.js';

/**
 * Kubernetes' NamespaceLifecycle admission, for servers that serve Namespaces: an object is
 * created only in a namespace that exists (404 `namespaces "x" not found`) and is not being
 * deleted (403 with a `NamespaceTerminating` cause), so that nothing outlives the deletion of its
 * namespace. The namespaces `default`, `plat-system` and `plat-public` may not be deleted
 * (Kubernetes' immortal namespaces, with the brand rule); that part is the Namespace strategy's.
 */
export interface NamespaceLifecycle {
  /** `call` carries the request's signal and the request (OperationOptions), for the namespace lookup. */
  admitCreate(gr: { group: string; resource: string }, namespace: string, name: string, call?: OperationOptions): Promise<void>;
}

const namespaceGr = { group: '', resource: namespacesResource };

/** Whether `resources` serve core v1 Namespaces (then namespaced creates are checked). */
export function servesNamespaces(resources: readonly ResourceDefinition[]): boolean {
  return resources.some((d) => d.group === '' && d.resource === namespacesResource);
}

export function namespaceLifecycle(storage: Storage): NamespaceLifecycle {
  const lookup = async (namespace: string, call: OperationOptions | undefined): Promise<Namespace | undefined> => {
    const key = objectKey('', namespacesResource, '', namespace);
    // The watch cache first; a namespace created a moment ago may not be there yet, so a miss is
    // confirmed by a quorum read (Kubernetes' plugin does a live lookup before refusing).
    for (const resourceVersion of ['0', '']) {
      try {
        return (await storage.get(key, { resourceVersion, signal: call?.signal, request: call?.request })) as Namespace;
      } catch (err) {
        if (!isStatusError(err, 'NotFound')) throw err;
      }
    }
    return undefined;
  };
  return {
    async admitCreate(gr, namespace, name, call) {
      const ns = await lookup(namespace, call);
      if (!ns) throw newNotFound(namespaceGr, namespace);
      if (ns.status?.phase !== NamespacePhase.Terminating) return;
      const err = newForbidden(gr, name, new Error(`unable to create new content in namespace ${namespace} because it is being terminated`));
      err.status.details = {
        ...err.status.details,
        causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
      };
      throw err;
    },
  };
}
