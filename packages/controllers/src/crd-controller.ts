import {
  apiextensionsGroup,
  customResourceCleanupFinalizer,
  customResourceDefinitionsResource,
  type ApiObject,
} from '@plat/api-model';
import type { LoopbackClient } from '@plat/server';
import { Reflector, collectionPrefix, type Storage } from '@plat/storage';
import { deleteEach, getObject, updateObject } from './api-writes.js';
import { KeyWorkQueue } from './work-queue.js';
import { silentControllerLogger, type ControllerLogger } from './controller-logger.js';

/** What the controller reads of a CustomResourceDefinition (@plat/registry's CustomResourceDefinition fits). */
interface Crd extends ApiObject {
  spec?: {
    group?: string;
    scope?: string;
    names?: { plural?: string; singular?: string; kind?: string; listKind?: string; shortNames?: string[]; categories?: string[] };
    versions?: Array<{ name?: string; served?: boolean; storage?: boolean }>;
  };
  status?: {
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }>;
    acceptedNames?: Record<string, unknown>;
    storedVersions?: string[];
  };
}

export interface CustomResourceDefinitionControllerOptions {
  /**
   * Serves the resource of an Established CRD (the CRD as it will be stored), or stops serving it
   * (`undefined`: deleted, or no longer Established). Called before the status that says it is
   * Established is written, so a client that sees the condition finds the resource served.
   */
  serve(name: string, crd: ApiObject | undefined): void;
  logger?: ControllerLogger;
  /** How soon a CRD whose custom resources are still held (finalizers) is looked at again. Default 5 s. */
  retryAfterMs?: number;
}

const crdPath = (name: string) => `/apis/${apiextensionsGroup}/v1/${customResourceDefinitionsResource}/${encodeURIComponent(name)}`;
const nowTime = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The names of a CRD another CRD of the same group must not take (plural, singular, short names; kind and listKind). */
function takenNames(crd: Crd): { resources: Set<string>; kinds: Set<string> } {
  const n = (crd.status?.acceptedNames ?? {}) as NonNullable<NonNullable<Crd['spec']>['names']>;
  return {
    resources: new Set([n.plural, n.singular, ...(n.shortNames ?? [])].filter((x): x is string => !!x)),
    kinds: new Set([n.kind, n.listKind].filter((x): x is string => !!x)),
  };
}

/**
 * Kubernetes' apiextensions controllers in one (naming, establishing and finalizing, in
 * staging/src/k8s.io/apiextensions-apiserver/pkg/controller): a new or changed CRD gets its
 * acceptedNames and `NamesAccepted` (or a conflict with another CRD of its group), then
 * `Established`, and its resource is served; a deleted one has its custom resources deleted,
 * then loses the `customresourcecleanup.apiextensions.k8s.io` finalizer and goes, and its
 * resource is no longer served. It watches CRDs in storage (its informer) and writes through the
 * loopback client.
 */
export class CustomResourceDefinitionController {
  private readonly reflector: Reflector;
  private readonly known = new Map<string, Crd>();
  private readonly queue: KeyWorkQueue;
  private readonly logger: ControllerLogger;

  constructor(
    storage: Storage,
    private readonly client: LoopbackClient,
    private readonly opts: CustomResourceDefinitionControllerOptions,
  ) {
    this.logger = opts.logger ?? silentControllerLogger;
    this.queue = new KeyWorkQueue((name) => this.sync(name), {
      retryAfterMs: opts.retryAfterMs ?? 5000,
      onError: (name, err) => this.logger.error('Cannot reconcile a CustomResourceDefinition', { name, err: err.message }),
    });
    const upsert = (obj: ApiObject) => {
      const name = obj.metadata?.name ?? '';
      this.known.set(name, obj as Crd);
      this.queue.add(name);
    };
    this.reflector = new Reflector(
      storage,
      collectionPrefix(apiextensionsGroup, customResourceDefinitionsResource),
      {
        replace: (items) => {
          const names = new Set(items.map((i) => i.metadata?.name ?? ''));
          for (const name of this.known.keys()) {
            if (!names.has(name)) {
              this.known.delete(name);
              this.opts.serve(name, undefined);
            }
          }
          items.forEach(upsert);
        },
        upsert,
        delete: (obj) => {
          const name = obj.metadata?.name ?? '';
          this.known.delete(name);
          this.opts.serve(name, undefined);
        },
      },
      { logger: opts.logger },
    );
  }

  /** Resolves once the CRDs stored are listed and each was worked on once (their resources served). */
  async start(): Promise<void> {
    this.reflector.start();
    await this.reflector.synced;
    await this.idle();
  }

  async stop(): Promise<void> {
    const stopping = this.queue.stop();
    await this.reflector.stop();
    await stopping;
  }

  /** Resolves when every queued CRD was worked on once. */
  async idle(): Promise<void> {
    await this.queue.idle();
  }

  /** One CRD; false when it must be looked at again (custom resources still held). */
  private async sync(name: string): Promise<boolean> {
    const crd = (await getObject(this.client, crdPath(name))) as Crd | undefined;
    if (!crd) {
      this.opts.serve(name, undefined);
      return true;
    }
    if (crd.metadata?.deletionTimestamp) return this.finalize(name, crd);
    const desired = this.withStatus(crd);
    const established = desired.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    this.opts.serve(name, established ? desired : undefined);
    if (JSON.stringify(desired.status) !== JSON.stringify(crd.status)) {
      await updateObject(this.client, crdPath(name), (current) => this.withStatus(current as Crd), { subresource: 'status' });
    }
    return true;
  }

  /** The CRD with the status the naming and establishing controllers give it. */
  private withStatus(crd: Crd): Crd {
    const next = structuredClone(crd);
    const status = (next.status ??= {});
    const names = next.spec?.names ?? {};
    const conflict = this.conflictOf(next);
    const set = (type: string, value: 'True' | 'False', reason: string, message: string) => {
      const conditions = status.conditions ?? [];
      const old = conditions.find((c) => c.type === type);
      if (old && old.status === value && old.reason === reason && old.message === message) return;
      const condition = { type, status: value, lastTransitionTime: old && old.status === value && old.lastTransitionTime ? old.lastTransitionTime : nowTime(), reason, message };
      status.conditions = old ? conditions.map((c) => (c === old ? condition : c)) : [...conditions, condition];
    };
    if (conflict) {
      set('NamesAccepted', 'False', conflict.reason, conflict.message);
      return next;
    }
    status.acceptedNames = { ...names };
    set('NamesAccepted', 'True', 'NoConflicts', 'no conflicts found');
    set('Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted');
    return next;
  }

  /** A name another CRD of the same group already accepted (Kubernetes' NamingConditionController). */
  private conflictOf(crd: Crd): { reason: string; message: string } | undefined {
    const group = crd.spec?.group;
    const names = crd.spec?.names ?? {};
    for (const [other, otherCrd] of this.known) {
      if (other === crd.metadata?.name || otherCrd.spec?.group !== group) continue;
      const taken = takenNames(otherCrd);
      for (const [field, value] of [['plural', names.plural], ['singular', names.singular], ...(names.shortNames ?? []).map((s) => ['shortNames', s])] as Array<[string, string | undefined]>) {
        if (value && taken.resources.has(value)) return { reason: field === 'plural' ? 'PluralConflict' : field === 'singular' ? 'SingularConflict' : 'ShortNamesConflict', message: `${JSON.stringify(value)} is already in use` };
      }
      for (const [field, value] of [['kind', names.kind], ['listKind', names.listKind]] as Array<[string, string | undefined]>) {
        if (value && taken.kinds.has(value)) return { reason: field === 'kind' ? 'KindConflict' : 'ListKindConflict', message: `${JSON.stringify(value)} is already in use` };
      }
    }
    return undefined;
  }

  /**
   * Kubernetes' CRDFinalizer: deletes every custom resource of the CRD through the REST API (an
   * object held by its finalizers is waited for), then removes the cleanup finalizer; the server
   * deletes the CRD with it.
   */
  private async finalize(name: string, crd: Crd): Promise<boolean> {
    if (!(crd.metadata?.finalizers ?? []).includes(customResourceCleanupFinalizer)) return true;
    const { group = '', names = {}, scope } = crd.spec ?? {};
    const version = (crd.spec?.versions ?? []).find((v) => v.served)?.name;
    const established = crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    if (version && established && names.plural) {
      // Served while its custom resources are deleted (also after a restart of the server).
      this.opts.serve(name, crd);
      const collection = `/apis/${group}/${version}/${names.plural}`;
      const listed = (await this.client.get(collection)) as { items?: ApiObject[] };
      const remaining = await deleteEach(this.client, listed.items ?? [], (obj) => {
        const ns = scope === 'Namespaced' ? `/namespaces/${encodeURIComponent(obj.metadata?.namespace ?? '')}` : '';
        return `/apis/${group}/${version}${ns}/${names.plural}/${encodeURIComponent(obj.metadata?.name ?? '')}`;
      });
      if (remaining > 0) return false;
    }
    await updateObject(this.client, crdPath(name), (current) => {
      const finalizers = current.metadata?.finalizers ?? [];
      if (!finalizers.includes(customResourceCleanupFinalizer)) return undefined;
      return { ...current, metadata: { ...current.metadata, finalizers: finalizers.filter((f) => f !== customResourceCleanupFinalizer) } };
    });
    this.logger.info(`deleted the custom resources of ${name}`, {}, 2);
    return true;
  }
}
