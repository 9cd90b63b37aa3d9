import { deleteOptionsSchema, validateDeleteOptions, validateDryRun } from './delete-options.js';

describe('DeleteOptions', () => {
  it('parses the wire form', () => {
    const opts = deleteOptionsSchema.parse({
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      gracePeriodSeconds: 0,
      preconditions: { uid: 'u-1', resourceVersion: '12' },
      propagationPolicy: 'Foreground',
      dryRun: ['All'],
    });
    expect(opts.preconditions).toEqual({ uid: 'u-1', resourceVersion: '12' });
    expect(validateDeleteOptions(opts)).toEqual([]);
  });

  it('rejects a fractional grace period and a non-list dryRun at decode time', () => {
    expect(deleteOptionsSchema.safeParse({ gracePeriodSeconds: 1.5 }).success).toBe(false);
    expect(deleteOptionsSchema.safeParse({ dryRun: 'All' }).success).toBe(false);
  });

  it.each(['Orphan', 'Background', 'Foreground'])('accepts propagationPolicy %s', (policy) => {
    expect(validateDeleteOptions({ propagationPolicy: policy })).toEqual([]);
  });

  it('rejects an unknown propagation policy with Kubernetes\' message', () => {
    expect(validateDeleteOptions({ propagationPolicy: 'Later' }).map(String)).toEqual([
      'propagationPolicy: Unsupported value: "Later": supported values: "Foreground", "Background", "Orphan", "nil"',
    ]);
  });

  it('rejects orphanDependents together with a policy', () => {
    expect(validateDeleteOptions({ orphanDependents: false, propagationPolicy: 'Orphan' }).map(String)).toEqual([
      'propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set',
    ]);
    expect(validateDeleteOptions({ orphanDependents: true })).toEqual([]);
  });

  it('accepts only dryRun All', () => {
    expect(validateDryRun(['All', 'All'])).toEqual([]);
    expect(validateDryRun(null)).toEqual([]);
    expect(validateDeleteOptions({ dryRun: ['All', 'Some'] }).map(String)).toEqual([
      'dryRun: Unsupported value: []string{"All", "Some"}: supported values: "All"',
    ]);
  });
});
