import { finalizerKubernetes, namespacesResource, type ApiObject, type Namespace } from '@plat/api-model';
import type { LoopbackClient } from '@plat/server';
import { Reflector, collectionPrefix, type Storage } from '@plat/storage';
import { silentControllerLogger, type ControllerLogger } from './controller-logger.js';
import { deleteEach, deleteObject, getObject, updateObject } from './api-writes.js';
import { KeyWorkQueue } from './work-queue.js';

/** A resource whose objects live in namespaces, as its REST paths name it. */
export interface NamespacedResource {
  group: string;
  version: string;
  resource: string;
}

function namespacedPath({ group, version, resource }: NamespacedResource, namespace: string): string {
  return `${group ? `/apis/${group}/${version}` : `/api/${version}`}/namespaces/${encodeURIComponent(namespace)}/${resource}`;
}

export interface NamespaceControllerOptions {
  /**
   * What a namespace holds: every namespaced resource the server stores (a function when the set
   * changes while running: custom resources).
   */
  namespacedResources: readonly NamespacedResource[] | (() => readonly NamespacedResource[]);
  logger?: ControllerLogger;
  /** How soon a namespace whose content is still held (by finalizers) is looked at again. Default 5 s. */
  retryAfterMs?: number;
}

/**
 * Kubernetes' namespace controller: once a namespace is being deleted (Terminating), it deletes
 * every object in it (objects held by finalizers get their deletionTimestamp and are waited for),
 * then removes the `kubernetes` finalizer from the namespace's spec through its `finalize`
 * subresource, and the namespace goes with its last finalizer. It watches namespaces in storage
 * (its informer) and writes only through the loopback client, so every write is authorized,
 * admitted and audited as a client's.
 */
export class NamespaceController {
  private readonly reflector: Reflector;
  private readonly queue: KeyWorkQueue;
  private readonly logger: ControllerLogger;

  constructor(
    private readonly storage: Storage,
    private readonly client: LoopbackClient,
    private readonly opts: NamespaceControllerOptions,
  ) {
    this.logger = opts.logger ?? silentControllerLogger;
    this.queue = new KeyWorkQueue((name) => this.finalize(name), {
      retryAfterMs: opts.retryAfterMs ?? 5000,
      onError: (namespace, err) => this.logger.error('Cannot delete the content of a namespace', { namespace, err: err.message }),
    });
    const consider = (obj: ApiObject) => {
      if (obj.metadata?.deletionTimestamp) this.queue.add(obj.metadata.name ?? '');
    };
    this.reflector = new Reflector(
      storage,
      collectionPrefix('', namespacesResource),
      { replace: (items) => items.forEach(consider), upsert: consider, delete: () => undefined },
      opts,
    );
  }

  async start(): Promise<void> {
    this.reflector.start();
    await this.reflector.synced;
  }

  async stop(): Promise<void> {
    const stopping = this.queue.stop();
    await this.reflector.stop();
    await stopping;
  }

  /** Resolves when every queued namespace was worked on once. */
  async idle(): Promise<void> {
    await this.queue.idle();
  }

  /** Works on one terminating namespace; false when content is still held and it must be looked at again. */
  private async finalize(name: string): Promise<boolean> {
    const path = `/api/v1/${namespacesResource}/${encodeURIComponent(name)}`;
    let ns = (await getObject(this.client, path)) as Namespace | undefined;
    if (!ns?.metadata?.deletionTimestamp) return true;
    if ((ns.spec?.finalizers ?? []).includes(finalizerKubernetes)) {
      if ((await this.deleteContent(name)) > 0) return false;
      // Kubernetes' namespace deleter finalizes through the namespace's `finalize` subresource
      // (pkg/controller/namespace/deletion/namespaced_resources_deleter.go, finalizeNamespace);
      // the server deletes the namespace in that update when no finalizer is left.
      ns = (await updateObject(
        this.client,
        path,
        (current) => {
          const finalizers = (current as Namespace).spec?.finalizers ?? [];
          if (!finalizers.includes(finalizerKubernetes)) return undefined;
          return { ...current, spec: { ...(current as Namespace).spec, finalizers: finalizers.filter((f) => f !== finalizerKubernetes) } } as ApiObject;
        },
        { subresource: 'finalize' },
      )) as Namespace | undefined;
      if (!ns) return true;
      if (!(ns.spec?.finalizers?.length ?? 0) && !(ns.metadata?.finalizers?.length ?? 0)) {
        this.logger.info(`deleted namespace ${name}`, {}, 2);
        return true;
      }
    }
    // Gone once nothing holds it any more (other spec or metadata finalizers belong to others).
    if ((ns.spec?.finalizers?.length ?? 0) > 0 || (ns.metadata?.finalizers?.length ?? 0) > 0) return true;
    if (await deleteObject(this.client, path, ns.metadata?.uid)) this.logger.info(`deleted namespace ${name}`, {}, 2);
    return true;
  }

  /**
   * Deletes what the namespace holds, object by object through the REST API (an object held by
   * finalizers gets its deletionTimestamp: 202); answers how many objects are still there.
   */
  private async deleteContent(namespace: string): Promise<number> {
    let remaining = 0;
    const resources = this.opts.namespacedResources;
    for (const resource of typeof resources === 'function' ? resources() : resources) {
      const collection = namespacedPath(resource, namespace);
      const listed = (await this.client.get(collection)) as { items?: ApiObject[] };
      remaining += await deleteEach(this.client, listed.items ?? [], (obj) => `${collection}/${encodeURIComponent(obj.metadata?.name ?? '')}`);
    }
    return remaining;
  }
}
