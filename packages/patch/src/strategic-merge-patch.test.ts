import { isStatusError, type StatusError } from '@plat/api-model';
import { clusterTrustBundle, deployment } from '../test/objects.js';
import { applyPatch } from './apply-patch.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';
import { lookupStrategicSchema } from './strategic-registry.js';
import { objectStrategicSchema, type StrategicSchema } from './strategic-schema.js';

// Expected results below were taken from kubectl 1.32 `patch --local` (the differential suite
// re-checks many more against the binary when it is installed).

function deploymentSchema(): StrategicSchema {
  const s = lookupStrategicSchema('apps/v1', 'Deployment');
  if (!s) throw new Error('no Deployment schema');
  return s;
}

function smp(doc: unknown, patch: unknown): Record<string, unknown> {
  return applyStrategicMergePatch(doc, patch, deploymentSchema()) as Record<string, unknown>;
}

function failure(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    if (isStatusError(err)) return err;
    throw err;
  }
  throw new Error('expected a StatusError');
}

const containers = (names: string[]) => names.map((name) => ({ name, image: name }));
const withContainers = (list: unknown[]) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  spec: { template: { spec: { containers: list } } },
});
const containerNames = (out: Record<string, unknown>) =>
  ((out.spec as { template: { spec: { containers: { name: string }[] } } }).template.spec.containers).map((c) => c.name);

describe('strategic merge patch: merging lists', () => {
  it('puts new and patched items in patch order, interleaved with the live order', () => {
    const out = smp(withContainers(containers(['a', 'b', 'c'])), { spec: { template: { spec: { containers: [{ name: 'd', image: 'd' }, { name: 'b', image: 'B' }] } } } });
    expect(containerNames(out)).toEqual(['d', 'a', 'b', 'c']);
  });

  it('unions a primitive merge list, patch items first, and drops duplicates', () => {
    const doc = { metadata: { finalizers: ['f1', 'f2', 'f3', 'f1'] } };
    expect(smp(doc, { metadata: { finalizers: ['b', 'f2', 'a'] } })).toEqual({ metadata: { finalizers: ['b', 'f1', 'f2', 'a', 'f3'] } });
  });

  it('orders by $setElementOrder, then the patch, then the live list', () => {
    const out = smp(withContainers(containers(['a', 'b', 'c'])), {
      spec: { template: { spec: { containers: [{ name: 'x' }], '$setElementOrder/containers': [{ name: 'c' }, { name: 'x' }, { name: 'a' }] } } },
    });
    expect(containerNames(out)).toEqual(['b', 'c', 'x', 'a']);
  });

  it('orders a $setElementOrder list as Kubernetes does after a deletion plus an addition', () => {
    // The added item takes the deleted one's slot in the live order Kubernetes compares against,
    // so it sorts after `a` although the directive lists it first.
    const out = smp(withContainers(containers(['a', 'b'])), {
      spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'n' }, { name: 'b' }], containers: [{ name: 'b', $patch: 'delete' }, { name: 'n' }] } } },
    });
    expect(containerNames(out)).toEqual(['a', 'n']);
  });

  it('deletes items with $patch: delete and replaces the list with $patch: replace', () => {
    const doc = withContainers(containers(['a', 'b']));
    expect(containerNames(smp(doc, { spec: { template: { spec: { containers: [{ name: 'a', $patch: 'delete' }] } } } }))).toEqual(['b']);
    expect(containerNames(smp(doc, { spec: { template: { spec: { containers: [{ name: 'z' }, { $patch: 'replace' }] } } } }))).toEqual(['z']);
  });

  it('removes values listed in $deleteFromPrimitiveList and ignores it for a missing list', () => {
    expect(smp({ metadata: { finalizers: ['a', 'b', 'c'] } }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['b', 'x'] } })).toEqual({ metadata: { finalizers: ['a', 'c'] } });
    expect(smp({ metadata: {} }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } })).toEqual({ metadata: {} });
  });

  it('replaces a list without patch strategy, keeping the patch literally', () => {
    const doc = { spec: { template: { spec: { tolerations: [{ key: 't1' }] } } } };
    const patch = { spec: { template: { spec: { tolerations: [{ $patch: 'replace' }, { key: 'a' }] } } } };
    expect(smp(doc, patch)).toEqual(patch);
  });
});

describe('strategic merge patch: maps and directives', () => {
  it('returns the object unchanged for a null patch, and refuses other non-objects', () => {
    const doc = { metadata: { name: 'd' }, spec: { replicas: 1 } };
    expect(smp(doc, null)).toEqual(doc);
    expect(failure(() => smp(doc, [])).message).toBe('invalid JSON document');
    expect(failure(() => smp(null, null)).message).toBe('invalid JSON document');
  });

  it('deletes a key with null and ignores null for a missing key', () => {
    expect(smp({ metadata: { labels: { a: '1', b: '2' } } }, { metadata: { labels: { a: null, c: null } } })).toEqual({ metadata: { labels: { b: '2' } } });
  });

  it('drops nulls and directive-carrying maps from values new to the object', () => {
    const out = smp({ spec: { template: { spec: {} } } }, {
      spec: { template: { spec: { volumes: [{ name: 'v', emptyDir: { x: null } }], affinity: { $patch: 'replace', nodeAffinity: {} } } } },
    });
    expect(out).toEqual({ spec: { template: { spec: { volumes: [{ name: 'v', emptyDir: {} }] } } } });
  });

  it('keeps the nulls of a new item appended to a merging list', () => {
    const doc = withContainers([{ name: 'a', env: [{ name: 'X', value: '1' }] }]);
    const out = smp(doc, { spec: { template: { spec: { containers: [{ name: 'a', env: [{ name: 'Y', value: '2', x: null }] }] } } } });
    expect((out.spec as { template: { spec: { containers: { env: unknown[] }[] } } }).template.spec.containers[0].env).toEqual([
      { name: 'Y', value: '2', x: null },
      { name: 'X', value: '1' },
    ]);
  });

  it('replaces a map with $patch: replace and empties it with $patch: delete', () => {
    expect(smp({ metadata: { labels: { a: '1' } } }, { metadata: { labels: { $patch: 'replace', b: '2' } } })).toEqual({ metadata: { labels: { b: '2' } } });
    expect(smp({ metadata: { labels: { a: '1' } } }, { metadata: { labels: { $patch: 'delete' } } })).toEqual({ metadata: { labels: {} } });
  });

  it('keeps only the keys listed in $retainKeys', () => {
    const doc = { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } };
    expect(smp(doc, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } })).toEqual({ spec: { strategy: { type: 'Recreate' } } });
  });

  it('does not change its inputs', () => {
    const doc = JSON.parse(JSON.stringify(deployment));
    const patch = { metadata: { labels: { app: null } }, spec: { template: { spec: { containers: [{ name: 'app', image: 'x' }] } } } };
    const patchCopy = JSON.parse(JSON.stringify(patch));
    smp(doc, patch);
    expect(doc).toEqual(deployment);
    expect(patch).toEqual(patchCopy);
  });
});

describe('strategic merge patch: errors', () => {
  it('answers a list item without its merge key with the library text (500, as the server does)', () => {
    const err = failure(() => smp(withContainers(containers(['a'])), { spec: { template: { spec: { containers: [{ image: 'x', ports: [{ containerPort: 80 }] }] } } } }));
    expect(err.code).toBe(500);
    expect(err.message).toBe('map: map[image:x ports:[map[containerPort:80]]] does not contain declared merge key: name');
  });

  it('answers format errors with 400 and lists of lists with 422', () => {
    const retain = failure(() => smp({ spec: { strategy: {} } }, { spec: { strategy: { $retainKeys: 'type' } } }));
    expect([retain.code, retain.message]).toEqual([400, 'invalid patch format of retainKeys']);
    const order = failure(() => smp({ metadata: {} }, { metadata: { $setElementOrder: [] } }));
    expect([order.code, order.message]).toEqual([400, 'invalid patch format of setElementOrder list']);
    const lists = failure(() => smp({ metadata: { finalizers: [] } }, { metadata: { finalizers: [['a']] } }));
    expect([lists.code, lists.reason, lists.message]).toEqual([422, 'Invalid', 'lists of lists are not supported']);
    const notObject = failure(() => smp({}, [1]));
    expect([notObject.code, notObject.message]).toEqual([400, 'invalid JSON document']);
  });

  it('names the struct when both sides hold a map under a field it lacks', () => {
    const err = failure(() => smp({ spec: { bogus: { a: 1 } } }, { spec: { bogus: { b: 2 } } }));
    expect(err.message).toBe('unable to find api field in struct DeploymentSpec for the json field "bogus"');
  });

  it('renders numbers in error texts as Go does', () => {
    const err = failure(() => smp(withContainers(containers(['a'])), { spec: { template: { spec: { containers: [{ image: 'x', n: 1000000, f: 0.5 }] } } } }));
    expect(err.message).toBe('map: map[f:0.5 image:x n:1e+06] does not contain declared merge key: name');
  });
});

describe('applyPatch with strategic merge patch', () => {
  it('patches a ClusterTrustBundle: finalizers union, labels merge', () => {
    const out = applyPatch(clusterTrustBundle, { metadata: { finalizers: ['f2'], labels: { c: 'd' } }, spec: { signerName: null } }, 'strategic', {
      apiVersion: 'certificates.plat.io/v1alpha1',
      kind: 'ClusterTrustBundle',
    });
    expect(out).toEqual({
      ...clusterTrustBundle,
      metadata: { ...clusterTrustBundle.metadata, finalizers: ['f2', 'f1'], labels: { a: 'b', c: 'd' } },
      spec: { trustBundle: clusterTrustBundle.spec.trustBundle },
    });
  });

  it('merges ownerReferences of a ClusterTrustBundle by uid', () => {
    const doc = { ...clusterTrustBundle, metadata: { name: 'x', ownerReferences: [{ uid: 'u1', name: 'a' }, { uid: 'u2', name: 'b' }] } };
    const out = applyPatch(doc, { metadata: { ownerReferences: [{ uid: 'u2', name: 'B' }] } }, 'strategic', {
      apiVersion: 'certificates.plat.io/v1alpha1',
      kind: 'ClusterTrustBundle',
    }) as typeof doc;
    expect(out.metadata.ownerReferences).toEqual([{ uid: 'u1', name: 'a' }, { uid: 'u2', name: 'B' }]);
  });

  it('refuses a kind without a schema with kubectl\'s words and 415', () => {
    const err = failure(() => applyPatch({}, {}, 'strategic', { apiVersion: 'stable.example.com/v1', kind: 'CronTab' }));
    expect(err.code).toBe(415);
    expect(err.message).toBe('strategic merge patch is not supported for stable.example.com/v1, Kind=CronTab locally, try --type merge');
    expect(failure(() => applyPatch({}, {}, 'strategic', { apiVersion: 'v1', kind: 'Nope' })).message).toBe(
      'strategic merge patch is not supported for /v1, Kind=Nope locally, try --type merge',
    );
  });

  it('uses a hand-written schema for a merge-keyed list', () => {
    const item = objectStrategicSchema('Item', { name: {}, value: {} });
    const schema = objectStrategicSchema('Thing', { items: { list: true, schema: item, patchStrategy: 'merge', patchMergeKey: 'name' } });
    const out = applyStrategicMergePatch({ items: [{ name: 'a', value: 1 }, { name: 'b', value: 2 }] }, { items: [{ name: 'b', value: 3 }] }, schema);
    expect(out).toEqual({ items: [{ name: 'a', value: 1 }, { name: 'b', value: 3 }] });
  });
});
