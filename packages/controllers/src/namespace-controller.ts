import { finalizerKubernetes, isStatusError, namespacesResource, type ApiObject, type Namespace } from '@plat/api-model';
import { Reflector, collectionPrefix, objectKey, type Storage } from '@plat/storage';
import { silentControllerLogger, type ControllerLogger } from './controller-logger.js';
import { apiserverFieldManager } from './bootstrap-policy.js';
import { updateStored } from './stored-objects.js';

/** A resource whose objects live in namespaces, as storage keys name it. */
export interface NamespacedResource {
  group: string;
  resource: string;
}

export interface NamespaceControllerOptions {
  /** What a namespace holds: every namespaced resource the server stores. */
  namespacedResources: readonly NamespacedResource[];
  logger?: ControllerLogger;
  /** How soon a namespace whose content is still held (by finalizers) is looked at again. Default 5 s. */
  retryAfterMs?: number;
}

/**
 * Kubernetes' namespace controller: once a namespace is being deleted (Terminating), it deletes
 * every object in it (objects held by finalizers get their deletionTimestamp and are waited for),
 * then removes the `kubernetes` finalizer from the namespace's spec and, when no finalizer is
 * left, the namespace itself.
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
    const key = objectKey('', namespacesResource, '', name);
    let ns: Namespace;
    try {
      ns = (await this.storage.get(key)) as Namespace;
    } catch (err) {
      if (isStatusError(err, 'NotFound')) return true;
      throw err;
    }
    if (!ns.metadata?.deletionTimestamp) return true;
    if ((ns.spec?.finalizers ?? []).includes(finalizerKubernetes)) {
      if ((await this.deleteContent(name)) > 0) return false;
      ns = (await updateStored(
        this.storage,
        key,
        (current) => {
          const cur = current as Namespace;
          if (!(cur.spec?.finalizers ?? []).includes(finalizerKubernetes)) return undefined;
          return { ...cur, spec: { ...cur.spec, finalizers: (cur.spec?.finalizers ?? []).filter((f) => f !== finalizerKubernetes) } };
        },
        apiserverFieldManager,
      )) as Namespace;
    }
    // Gone once nothing holds it any more (other spec or metadata finalizers belong to others).
    if ((ns.spec?.finalizers?.length ?? 0) > 0 || (ns.metadata?.finalizers?.length ?? 0) > 0) return true;
    try {
      await this.storage.delete(key, { preconditions: { uid: ns.metadata?.uid } });
      this.logger.info(`deleted namespace ${name}`, {}, 2);
    } catch (err) {
      if (!isStatusError(err, 'NotFound') && !isStatusError(err, 'Conflict')) throw err;
    }
    return true;
  }

  /** Deletes what the namespace holds; answers how many objects are still there (held by finalizers). */
  private async deleteContent(namespace: string): Promise<number> {
    let remaining = 0;
    for (const { group, resource } of this.opts.namespacedResources) {
      const listed = await this.storage.list(collectionPrefix(group, resource, namespace));
      for (const obj of listed.items) {
        const key = objectKey(group, resource, namespace, obj.metadata?.name ?? '');
        try {
          if ((obj.metadata?.finalizers?.length ?? 0) > 0) {
            remaining++;
            if (!obj.metadata?.deletionTimestamp) {
              await this.storage.guaranteedUpdate(key, (cur) =>
                cur.metadata?.deletionTimestamp
                  ? cur
                  : { ...cur, metadata: { ...cur.metadata, deletionTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'), deletionGracePeriodSeconds: 0 } },
              );
            }
          } else {
            await this.storage.delete(key, { preconditions: { uid: obj.metadata?.uid } });
          }
        } catch (err) {
          if (!isStatusError(err, 'NotFound')) throw err;
        }
      }
    }
    return remaining;
  }
}
