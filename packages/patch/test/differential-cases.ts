import { clusterRole, clusterTrustBundle, configMap, customResource, deployment, pod, service } from './objects.js';

/** One `kubectl patch --local -f <object> --type <type> -p <patch> -o json` run. */
export interface DifferentialCase {
  readonly name: string;
  readonly object: Record<string, unknown>;
  readonly type: 'json' | 'merge' | 'strategic';
  readonly patch: unknown;
}

const podSpec = (spec: unknown) => ({ spec: { template: { spec: spec } } });

export const differentialCases: DifferentialCase[] = [
  // --- strategic: Deployment
  { name: 'changes an image by container name', object: deployment, type: 'strategic', patch: podSpec({ containers: [{ name: 'app', image: 'nginx:1.27' }] }) },
  { name: 'adds a container before the existing ones', object: deployment, type: 'strategic', patch: podSpec({ containers: [{ name: 'new', image: 'x' }] }) },
  { name: 'merges two containers in patch order', object: deployment, type: 'strategic', patch: podSpec({ containers: [{ name: 'sidecar', image: 's' }, { name: 'new', image: 'n' }, { name: 'app', image: 'a' }] }) },
  { name: 'merges env by name and keeps nulls of a new entry', object: deployment, type: 'strategic', patch: podSpec({ containers: [{ name: 'app', env: [{ name: 'B', value: '20' }, { name: 'D', value: '4', x: null }] }] }) },
  { name: 'deletes an env entry with $patch delete', object: deployment, type: 'strategic', patch: podSpec({ containers: [{ name: 'app', env: [{ name: 'A', $patch: 'delete' }] }] }) },
  { name: 'merges ports by containerPort', object: deployment, type: 'strategic', patch: podSpec({ containers: [{ name: 'app', ports: [{ containerPort: 9090, name: 'prom' }, { containerPort: 7070 }] }] }) },
  { name: 'merges volumeMounts by mountPath', object: deployment, type: 'strategic', patch: podSpec({ containers: [{ name: 'app', volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }, { name: 'data2', mountPath: '/data' }] }] }) },
  { name: 'replaces args (no merge strategy)', object: deployment, type: 'strategic', patch: podSpec({ containers: [{ name: 'app', args: ['--other'] }] }) },
  { name: 'merges volumes by name, retaining keys of the volume source', object: deployment, type: 'strategic', patch: podSpec({ volumes: [{ name: 'cache', emptyDir: { sizeLimit: '1Gi' } }, { name: 'new', emptyDir: { x: null } }] }) },
  { name: 'switches a volume source with $retainKeys', object: deployment, type: 'strategic', patch: podSpec({ volumes: [{ name: 'data', $retainKeys: ['name', 'emptyDir'], emptyDir: {} }] }) },
  { name: 'replaces tolerations (atomic list)', object: deployment, type: 'strategic', patch: podSpec({ tolerations: [{ key: 'k3', operator: 'Exists' }] }) },
  { name: 'keeps a $patch item literally in a replaced list', object: deployment, type: 'strategic', patch: podSpec({ tolerations: [{ $patch: 'replace' }, { key: 'k9', operator: 'Exists' }] }) },
  { name: 'replaces a merging list with $patch replace', object: deployment, type: 'strategic', patch: podSpec({ containers: [{ $patch: 'replace' }, { name: 'only', image: 'o' }] }) },
  { name: 'replaces a map with $patch replace', object: deployment, type: 'strategic', patch: podSpec({ nodeSelector: { $patch: 'replace', zone: 'z1' } }) },
  { name: 'deletes a map with $patch delete', object: deployment, type: 'strategic', patch: podSpec({ affinity: { $patch: 'delete' } }) },
  { name: 'drops a new map carrying a directive', object: deployment, type: 'strategic', patch: podSpec({ securityContext: { $patch: 'replace', runAsUser: 1000 } }) },
  { name: 'orders containers with $setElementOrder', object: deployment, type: 'strategic', patch: podSpec({ '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }], containers: [{ name: 'app', image: 'z' }] }) },
  { name: 'orders containers and adds one with $setElementOrder', object: deployment, type: 'strategic', patch: podSpec({ '$setElementOrder/containers': [{ name: 'x' }, { name: 'sidecar' }, { name: 'app' }], containers: [{ name: 'x', image: 'x' }] }) },
  { name: 'deletes finalizers with $deleteFromPrimitiveList', object: deployment, type: 'strategic', patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/f2'] } } },
  { name: 'unions finalizers (primitive merge list)', object: deployment, type: 'strategic', patch: { metadata: { finalizers: ['example.com/f9', 'example.com/f2'] } } },
  { name: 'orders finalizers with $setElementOrder', object: deployment, type: 'strategic', patch: { metadata: { '$setElementOrder/finalizers': ['example.com/f3', 'example.com/f1', 'example.com/f2'] } } },
  { name: 'merges ownerReferences by uid', object: deployment, type: 'strategic', patch: { metadata: { ownerReferences: [{ uid: 'uid-b', name: 'owner-b2', apiVersion: 'v1', kind: 'ConfigMap' }] } } },
  { name: 'deletes fields with null', object: deployment, type: 'strategic', patch: { metadata: { labels: { tier: null }, annotations: null }, spec: { replicas: null } } },
  { name: 'retainKeys strategy on a deployment strategy', object: deployment, type: 'strategic', patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } } },
  { name: 'replaces a scalar by a map', object: deployment, type: 'strategic', patch: { spec: { replicas: { a: 1, b: null } } } },
  { name: 'adds a field unknown to the schema', object: deployment, type: 'strategic', patch: { spec: { bogus: { a: [1, 2] } } } },
  { name: 'merges resources limits map', object: deployment, type: 'strategic', patch: podSpec({ containers: [{ name: 'app', resources: { limits: { cpu: null, 'nvidia.com/gpu': '1' } } }] }) },
  { name: 'merges matchExpressions lists (no merge key: replaced)', object: deployment, type: 'strategic', patch: podSpec({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'disk', operator: 'Exists' }] }] } } } }) },
  { name: 'merges imagePullSecrets by name', object: deployment, type: 'strategic', patch: podSpec({ imagePullSecrets: [{ name: 'reg-b' }] }) },
  // --- strategic: Pod, Service, ConfigMap, ClusterRole
  { name: 'pod: adds a readiness gate', object: pod, type: 'strategic', patch: { spec: { readinessGates: [{ conditionType: 'Other' }] } } },
  { name: 'pod: merges hostAliases by ip', object: pod, type: 'strategic', patch: { spec: { hostAliases: [{ ip: '10.0.0.1', hostnames: ['b.example'] }, { ip: '10.0.0.2', hostnames: ['c'] }] } } },
  { name: 'pod: adds env to a container', object: pod, type: 'strategic', patch: { spec: { containers: [{ name: 'main', env: [{ name: 'Y', value: 'y' }] }] } } },
  { name: 'pod: deletes a port by containerPort', object: pod, type: 'strategic', patch: { spec: { containers: [{ name: 'main', ports: [{ containerPort: 80, $patch: 'delete' }] }] } } },
  { name: 'service: merges ports by port', object: service, type: 'strategic', patch: { spec: { ports: [{ port: 443, targetPort: 9443 }, { port: 8080, name: 'alt' }] } } },
  { name: 'service: replaces externalIPs', object: service, type: 'strategic', patch: { spec: { externalIPs: ['10.2.2.2'], type: 'NodePort' } } },
  { name: 'configmap: sets and removes data keys', object: configMap, type: 'strategic', patch: { data: { 'a.conf': null, 'c.conf': 'z=3' }, metadata: { labels: { b: '2' } } } },
  { name: 'configmap: $patch replace on data', object: configMap, type: 'strategic', patch: { data: { $patch: 'replace', only: 'x' } } },
  { name: 'clusterrole: replaces rules', object: clusterRole, type: 'strategic', patch: { rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] }] } },
  // --- strategic: errors
  { name: 'error: a container without its merge key', object: deployment, type: 'strategic', patch: podSpec({ containers: [{ image: 'x' }] }) },
  { name: 'error: an unknown $patch directive on a map', object: deployment, type: 'strategic', patch: { spec: { $patch: 'bogus' } } },
  { name: 'error: $patch merge in a list', object: deployment, type: 'strategic', patch: podSpec({ containers: [{ name: 'app', $patch: 'merge' }] }) },
  { name: 'error: $retainKeys not listing a patched key', object: deployment, type: 'strategic', patch: { spec: { strategy: { $retainKeys: ['rollingUpdate'], type: 'Recreate' } } } },
  { name: 'error: $retainKeys not a list', object: deployment, type: 'strategic', patch: { spec: { strategy: { $retainKeys: 'type' } } } },
  { name: 'error: $setElementOrder disagreeing with the patch list', object: deployment, type: 'strategic', patch: podSpec({ '$setElementOrder/containers': [{ name: 'app' }], containers: [{ name: 'sidecar', image: 'q' }] }) },
  { name: 'error: lists of lists', object: deployment, type: 'strategic', patch: { metadata: { finalizers: [['a']] } } },
  { name: 'error: mixed element types', object: deployment, type: 'strategic', patch: { metadata: { finalizers: [1] } } },
  { name: 'error: a field the struct lacks, both sides maps', object: { ...deployment, spec: { ...deployment.spec, bogus: { a: 1 } } }, type: 'strategic', patch: { spec: { bogus: { b: 2 } } } },
  { name: 'error: strategic merge patch of a custom resource', object: customResource, type: 'strategic', patch: { spec: { cronSpec: 'x' } } },
  // --- merge patch
  { name: 'merge: sets and deletes fields', object: deployment, type: 'merge', patch: { metadata: { labels: { tier: null, x: 'y' } }, spec: { replicas: 5 } } },
  { name: 'merge: replaces lists wholesale', object: deployment, type: 'merge', patch: podSpec({ containers: [{ name: 'only', image: 'o', env: [{ name: 'a', value: null }] }] }) },
  { name: 'merge: drops nulls of a new object', object: deployment, type: 'merge', patch: { spec: { newField: { a: null, b: { c: null, d: 1 } } } } },
  { name: 'merge: custom resource', object: customResource, type: 'merge', patch: { spec: { cronSpec: 'x', items: null } } },
  { name: 'merge: cluster trust bundle', object: clusterTrustBundle, type: 'merge', patch: { spec: { signerName: null } } },
  { name: 'error: merge patch that is a string', object: deployment, type: 'merge', patch: 'x' },
  // --- JSON patch
  { name: 'json: replaces an image by index', object: deployment, type: 'json', patch: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:2' }] },
  { name: 'json: appends with -', object: deployment, type: 'json', patch: [{ op: 'add', path: '/spec/template/spec/containers/0/args/-', value: '--x' }] },
  { name: 'json: escapes ~0 and ~1', object: deployment, type: 'json', patch: [{ op: 'add', path: '/metadata/annotations/example.com~1a~0b', value: 'v' }] },
  { name: 'json: replace of a missing member adds it', object: deployment, type: 'json', patch: [{ op: 'replace', path: '/spec/paused', value: true }] },
  { name: 'json: negative index removes from the end', object: deployment, type: 'json', patch: [{ op: 'remove', path: '/metadata/finalizers/-1' }] },
  { name: 'json: move, copy and a passing test', object: deployment, type: 'json', patch: [{ op: 'copy', from: '/metadata/labels', path: '/metadata/annotations/copied' }, { op: 'move', from: '/spec/replicas', path: '/spec/x' }, { op: 'test', path: '/spec/x', value: 2 }] },
  { name: 'json: add without value writes null', object: configMap, type: 'json', patch: [{ op: 'add', path: '/data/n' }] },
  { name: 'json: custom resource', object: customResource, type: 'json', patch: [{ op: 'add', path: '/spec/items/0/x', value: 1 }] },
  { name: 'json: path without leading slash addresses the root', object: configMap, type: 'json', patch: [{ op: 'add', path: 'data/zz', value: 'w' }] },
  { name: 'error: json remove of a missing key', object: deployment, type: 'json', patch: [{ op: 'remove', path: '/spec/nope' }] },
  { name: 'error: json add under a missing parent', object: deployment, type: 'json', patch: [{ op: 'add', path: '/spec/a/b', value: 1 }] },
  { name: 'error: json failed test', object: deployment, type: 'json', patch: [{ op: 'test', path: '/spec/replicas', value: 3 }] },
  { name: 'error: json unknown op', object: deployment, type: 'json', patch: [{ op: 'frobnicate', path: '/spec' }] },
  { name: 'error: json op missing', object: deployment, type: 'json', patch: [{ path: '/spec' }] },
  { name: 'error: json index out of range', object: deployment, type: 'json', patch: [{ op: 'add', path: '/metadata/finalizers/9', value: 'x' }] },
  { name: 'error: json index not a number', object: deployment, type: 'json', patch: [{ op: 'add', path: '/metadata/finalizers/x', value: 'x' }] },
  { name: 'error: json replace out of range', object: deployment, type: 'json', patch: [{ op: 'replace', path: '/metadata/finalizers/7', value: 'x' }] },
  { name: 'error: json move from a missing key', object: deployment, type: 'json', patch: [{ op: 'move', from: '/spec/nope', path: '/spec/x' }] },
  { name: 'error: json copy from a missing path', object: deployment, type: 'json', patch: [{ op: 'copy', from: '/nope/a', path: '/spec/x' }] },
  { name: 'error: json patch missing path', object: deployment, type: 'json', patch: [{ op: 'add', value: 1 }] },
  { name: 'error: json replace missing path', object: deployment, type: 'json', patch: [{ op: 'replace', value: 1 }] },
  { name: 'error: json patch not a list', object: deployment, type: 'json', patch: { op: 'add' } },
  { name: 'error: json test missing path', object: deployment, type: 'json', patch: [{ op: 'test', path: '/nope/x', value: 1 }] },
];
