import type { ResourceDefinition } from './resource.js';

/** Bound on the resources added at run time (each CustomResourceDefinition adds one). */
export const maxDynamicResources = 1000;

/**
 * Resources added and removed while the server runs (Kubernetes' apiextensions-apiserver serves a
 * CustomResourceDefinition's resource once it is Established, and stops when it is deleted).
 * Each set is keyed by its owner (a CRD's name); a change bumps `version`, and the server rebuilds
 * its routes, discovery and OpenAPI from the resources given at start plus these.
 */
export class DynamicResources {
  private readonly sets = new Map<string, readonly ResourceDefinition[]>();
  private readonly listeners = new Set<() => void>();
  /** Counts the changes; what is built from the resources is current while it equals this. */
  version = 0;

  /** Serves `defs` for `owner`, in place of what it served before. */
  set(owner: string, defs: readonly ResourceDefinition[]): void {
    if (!this.sets.has(owner) && this.sets.size >= maxDynamicResources) throw new Error(`more than ${maxDynamicResources} dynamic resource sets`);
    this.sets.set(owner, defs);
    this.changed();
  }

  /** Stops serving what `owner` served. */
  delete(owner: string): void {
    if (this.sets.delete(owner)) this.changed();
  }

  has(owner: string): boolean {
    return this.sets.has(owner);
  }

  /** Every resource served at run time, in the order the owners were first set. */
  all(): ResourceDefinition[] {
    return [...this.sets.values()].flat();
  }

  /** Calls `fn` after each change; returns the function that stops it. */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    this.version++;
    for (const fn of this.listeners) fn();
  }
}
