import { finalizerKubernetes, namespacesResource, type ApiObject, type Namespace } from '@plat/api-model';
import type { LoopbackClient } from '@plat/server';
import { Reflector, collectionPrefix, type Storage } from '@plat/storage';
import { silentControllerLogger, type ControllerLogger } from './controller-logger.js';
import { deleteObject, getObject, updateObject } from './api-writes.js';

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
  private readonly pending = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private working: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly logger: ControllerLogger;

  constructor(
    private readonly storage: Storage,
    private readonly client: LoopbackClient,
    private readonly opts: NamespaceControllerOptions,
  ) {
    this.logger = opts.logger ?? silentControllerLogger;
    const consider = (obj: ApiObject) => {
      if (obj.metadata?.deletionTimestamp) this.enqueue(obj.metadata.name ?? '');
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
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await this.reflector.stop();
    await this.working;
  }

  /** Resolves when every queued namespace was worked on once. */
  async idle(): Promise<void> {
    await this.working;
  }

  private enqueue(name: string): void {
    if (this.stopped || this.pending.has(name)) return;
    this.pending.add(name);
    this.working = this.working.then(async () => {
      this.pending.delete(name);
      try {
        if (!(await this.finalize(name))) this.retryLater(name);
      } catch (err) {
        this.logger.error('Cannot delete the content of a namespace', { namespace: name, err: (err as Error).message });
        this.retryLater(name);
      }
    });
  }

  private retryLater(name: string): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.enqueue(name);
    }, this.opts.retryAfterMs ?? 5000);
    timer.unref();
    this.timers.add(timer);
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
      for (const obj of listed.items ?? []) {
        const uid = obj.metadata?.uid;
        const res = await this.client.request({
          method: 'DELETE',
          path: `${collection}/${encodeURIComponent(obj.metadata?.name ?? '')}`,
          body: { apiVersion: 'v1', kind: 'DeleteOptions', ...(uid ? { preconditions: { uid } } : {}) },
        });
        if (res.status === 202) remaining++;
        // 404: deleted meanwhile; 409: replaced by a new object, which the next pass deletes.
        else if (res.status === 409) remaining++;
        else if (res.status !== 200 && res.status !== 404) throw new Error(`DELETE ${collection}/${obj.metadata?.name ?? ''}: ${res.status} ${res.body.toString('utf8')}`);
      }
    }
    return remaining;
  }
}
