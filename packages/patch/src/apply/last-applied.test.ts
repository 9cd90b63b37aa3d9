import { ownersOf } from '../../test/apply/test-schema.js';
import { apply, newApplyConflictError } from './apply.js';
import { LAST_APPLIED_ANNOTATION } from './last-applied.js';
import { recordUpdate } from './record-update.js';

const V = 'certificates.plat.io/v1alpha1';
const T0 = '2026-11-22T06:00:00Z';
const T1 = '2026-11-22T06:30:00Z';

function ctb(trustBundle: string, annotations?: Record<string, string>) {
  return {
    apiVersion: V,
    kind: 'ClusterTrustBundle',
    metadata: { name: 'ca', ...(annotations ? { annotations } : {}) },
    spec: { trustBundle },
  };
}

/** What `kubectl apply` (client-side) stores: the object with its configuration as annotation. */
function clientSideApplied(trustBundle: string) {
  const config = ctb(trustBundle);
  const last = `${JSON.stringify({ apiVersion: V, kind: 'ClusterTrustBundle', metadata: { annotations: {}, name: 'ca' }, spec: { trustBundle } })}\n`;
  return recordUpdate({
    after: { ...config, metadata: { ...config.metadata, uid: 'u', annotations: { [LAST_APPLIED_ANNOTATION]: last } } },
    manager: 'kubectl-client-side-apply',
    apiVersion: V,
    now: T0,
  }).object;
}

describe('moving from client-side to server-side apply', () => {
  it('kubectl takes the fields its last-applied annotation describes, and rewrites the annotation', () => {
    const live = clientSideApplied('A<1>');
    const r = apply({ live, applied: ctb('B&2'), manager: 'kubectl', apiVersion: V, now: T1 });
    expect(r.conflicts).toEqual([]);
    expect(r.object.spec).toEqual({ trustBundle: 'B&2' });
    expect(ownersOf(r.managedFields)).toEqual({
      kubectl: ['.spec.trustBundle'],
      'kubectl-client-side-apply@Update': ['.metadata.annotations', `.metadata.annotations.${LAST_APPLIED_ANNOTATION}`],
    });
    const annotations = (r.object.metadata as { annotations: Record<string, string> }).annotations;
    expect(annotations[LAST_APPLIED_ANNOTATION]).toBe(
      '{"apiVersion":"certificates.plat.io/v1alpha1","kind":"ClusterTrustBundle","metadata":{"name":"ca"},"spec":{"trustBundle":"B\\u00262"}}\n',
    );
  });

  it('another manager still conflicts with the client-side applier', () => {
    const live = clientSideApplied('A');
    const r = apply({ live, applied: ctb('B'), manager: 'helm', apiVersion: V, now: T1 });
    expect(newApplyConflictError(r.conflicts).status.message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using certificates.plat.io/v1alpha1: .spec.trustBundle',
    );
  });

  it('a field changed since the client-side apply still conflicts for kubectl', () => {
    const live = clientSideApplied('A');
    const edited = recordUpdate({ before: live, after: { ...live, spec: { trustBundle: 'E' } }, manager: 'kubectl-edit', apiVersion: V, now: T1 }).object;
    const r = apply({ live: edited, applied: ctb('B'), manager: 'kubectl', apiVersion: V, now: T1 });
    expect(r.conflicts.map((c) => c.manager)).toEqual(['kubectl-edit']);
  });

  it('leaves objects without the annotation alone', () => {
    const r = apply({ applied: ctb('A'), manager: 'kubectl', apiVersion: V, now: T0 });
    expect(r.object.metadata).not.toHaveProperty('annotations');
  });
});
