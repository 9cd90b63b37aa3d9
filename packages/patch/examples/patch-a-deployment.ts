import * as assert from 'node:assert/strict';
import { isStatusError } from '@plat/api-model';
import { applyPatch } from '@plat/patch';

// A live object, as decoded JSON. Patches never change their inputs.
const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web' } },
  spec: {
    replicas: 1,
    template: {
      spec: {
        containers: [
          { name: 'web', image: 'nginx:1.25' },
          { name: 'sidecar', image: 'envoy:1.30' },
        ],
      },
    },
  },
};
const gvk = { apiVersion: 'apps/v1', kind: 'Deployment' };

// Strategic merge patch: containers merge by name (the schema comes from Kubernetes' OpenAPI).
const strategic = applyPatch(deployment, { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } } }, 'strategic', gvk);
assert.deepEqual(
  (strategic as typeof deployment).spec.template.spec.containers.map((c) => c.image),
  ['nginx:1.27', 'envoy:1.30'],
);

// JSON merge patch (RFC 7396): a list is replaced as a whole; null deletes.
const merged = applyPatch(deployment, { metadata: { labels: { app: null, tier: 'front' } }, spec: { replicas: 3 } }, 'merge', gvk);
assert.deepEqual((merged as typeof deployment).metadata.labels, { tier: 'front' });

// JSON patch (RFC 6902), with kubectl's error texts as StatusErrors.
const jsonPatched = applyPatch(deployment, [{ op: 'replace', path: '/spec/replicas', value: 5 }], 'json', gvk);
assert.equal((jsonPatched as typeof deployment).spec.replicas, 5);
try {
  applyPatch(deployment, [{ op: 'remove', path: '/spec/paused' }], 'json', gvk);
  assert.fail('expected an error');
} catch (err) {
  assert.ok(isStatusError(err));
  console.log(err.status.code, err.message); // 422 error in remove for path: '/spec/paused': ...
}
