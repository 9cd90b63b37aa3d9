import {
  clusterRoleKind,
  clusterRoleResource,
  compareGoStrings,
  labelSelectorAsSelector,
  rbacApiVersion,
  rbacGroup,
  type ClusterRole,
  type PolicyRule,
} from '@plat/api-model';
import type { LoopbackClient } from '@plat/server';
import { Reflector, collectionPrefix, type Storage } from '@plat/storage';
import { silentControllerLogger, type ControllerLogger } from './controller-logger.js';

/** The field manager of the aggregated rules (Kubernetes' own name for this controller). */
export const aggregationFieldManager = 'clusterrole-aggregation-controller';

/** A rule as Kubernetes' semantic DeepEqual compares it (a nil and an empty list are equal). */
function ruleKey(rule: PolicyRule): string {
  return JSON.stringify([rule.verbs ?? [], rule.apiGroups ?? [], rule.resources ?? [], rule.resourceNames ?? [], rule.nonResourceURLs ?? []]);
}

/**
 * Kubernetes' clusterrole aggregation: the rules of a cluster role with an aggregationRule are the
 * rules of every other cluster role its selectors select, selector by selector, roles in name
 * order, each distinct rule once.
 */
export function aggregatedRules(role: ClusterRole, all: Iterable<ClusterRole>): PolicyRule[] {
  const name = role.metadata?.name ?? '';
  const candidates = [...all].sort((a, b) => compareGoStrings(a.metadata?.name ?? '', b.metadata?.name ?? ''));
  const rules: PolicyRule[] = [];
  const seen = new Set<string>();
  for (const selectorObject of role.aggregationRule?.clusterRoleSelectors ?? []) {
    let selector;
    try {
      selector = labelSelectorAsSelector(selectorObject);
    } catch {
      continue; // validation keeps invalid selectors out; one that slipped in selects nothing
    }
    for (const candidate of candidates) {
      if (candidate.metadata?.name === name || !selector.matches(candidate.metadata?.labels ?? {})) continue;
      for (const rule of candidate.rules ?? []) {
        const key = ruleKey(rule);
        if (seen.has(key)) continue;
        seen.add(key);
        rules.push(structuredClone(rule));
      }
    }
  }
  return rules;
}

const sameRules = (a: readonly PolicyRule[], b: readonly PolicyRule[]): boolean =>
  a.length === b.length && a.every((rule, i) => ruleKey(rule) === ruleKey(b[i]!));

/**
 * Kubernetes' clusterrole-aggregation controller, inside the server: it watches cluster roles and,
 * after any change, sets the rules of every cluster role with an aggregationRule to the rules its
 * selectors gather, by server-side apply as `clusterrole-aggregation-controller` with force (so
 * the rules are the controller's; direct edits of them are undone).
 */
export class ClusterRoleAggregationController {
  private readonly roles = new Map<string, ClusterRole>();
  private readonly reflector: Reflector;
  private scheduled = false;
  private running: Promise<void> = Promise.resolve();
  private readonly logger: ControllerLogger;

  /** Watches the cluster roles in `storage` (its informer) and writes through `client`. */
  constructor(
    storage: Storage,
    private readonly client: LoopbackClient,
    opts: { logger?: ControllerLogger } = {},
  ) {
    this.logger = opts.logger ?? silentControllerLogger;
    this.reflector = new Reflector(
      storage,
      collectionPrefix(rbacGroup, clusterRoleResource),
      {
        replace: (items) => {
          this.roles.clear();
          for (const r of items) this.roles.set(r.metadata?.name ?? '', r as ClusterRole);
          this.schedule();
        },
        upsert: (obj) => {
          this.roles.set(obj.metadata?.name ?? '', obj as ClusterRole);
          this.schedule();
        },
        delete: (obj) => {
          this.roles.delete(obj.metadata?.name ?? '');
          this.schedule();
        },
      },
      opts,
    );
  }

  /** Starts watching; resolves when the first aggregation pass is done. */
  async start(): Promise<void> {
    this.reflector.start();
    await this.reflector.synced;
    await this.idle();
  }

  async stop(): Promise<void> {
    await this.reflector.stop();
    await this.running;
  }

  /** Resolves once no aggregation pass is pending. */
  async idle(): Promise<void> {
    while (this.scheduled) await this.running;
    await this.running;
  }

  /** Coalesces bursts of changes (a re-list, a bootstrap) into one pass over the aggregated roles. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.running = this.running.then(
      () =>
        new Promise<void>((resolve) =>
          setImmediate(() => {
            this.scheduled = false;
            this.syncAll().then(resolve, resolve);
          }),
        ),
    );
  }

  private async syncAll(): Promise<void> {
    for (const role of [...this.roles.values()]) {
      if (!role.aggregationRule) continue;
      const rules = aggregatedRules(role, this.roles.values());
      if (sameRules(rules, role.rules ?? [])) continue;
      const name = role.metadata?.name ?? '';
      try {
        await this.applyRules(name, rules);
        this.logger.info(`aggregated the rules of clusterrole.${rbacGroup}/${name}`, { rules: rules.length }, 2);
      } catch (err) {
        // The next change of any cluster role (or a re-list) tries again.
        this.logger.error('Cannot update the rules of an aggregated cluster role', { name, err: (err as Error).message });
      }
    }
  }

  private async applyRules(name: string, rules: PolicyRule[]): Promise<void> {
    // Server-side apply through the REST API, as Kubernetes' controller does (ApplyClusterRole, forced).
    const applied = { apiVersion: rbacApiVersion, kind: clusterRoleKind, metadata: { name }, rules };
    await this.client.apply(`/apis/${rbacApiVersion}/${clusterRoleResource}/${encodeURIComponent(name)}`, applied, { fieldManager: aggregationFieldManager, force: true });
  }
}
