/** Objects the patch tests run against: built-in kinds with the lists that merge differently. */

export const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'default',
    labels: { app: 'web', tier: 'front' },
    annotations: { 'example.com/owner': 'team-a' },
    finalizers: ['example.com/f1', 'example.com/f2', 'example.com/f3'],
    ownerReferences: [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner-a', uid: 'uid-a' },
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner-b', uid: 'uid-b' },
    ],
  },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'web' } },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [
          {
            name: 'app',
            image: 'nginx:1.25',
            args: ['--port=8080', '--verbose'],
            ports: [
              { containerPort: 8080, name: 'http', protocol: 'TCP' },
              { containerPort: 9090, name: 'metrics', protocol: 'TCP' },
            ],
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
              { name: 'C', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            ],
            volumeMounts: [
              { name: 'data', mountPath: '/data' },
              { name: 'cache', mountPath: '/cache' },
            ],
            resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '100m' } },
          },
          { name: 'sidecar', image: 'busybox:1.36', command: ['sleep', '3600'] },
        ],
        initContainers: [{ name: 'init', image: 'busybox:1.36' }],
        volumes: [
          { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
          { name: 'cache', emptyDir: { medium: 'Memory' } },
        ],
        tolerations: [
          { key: 'k1', operator: 'Exists', effect: 'NoSchedule' },
          { key: 'k2', operator: 'Equal', value: 'v2', effect: 'NoExecute' },
        ],
        imagePullSecrets: [{ name: 'reg-a' }],
        nodeSelector: { disk: 'ssd' },
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }],
            },
          },
        },
      },
    },
  },
};

export const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', labels: { app: 'p' } },
  spec: {
    containers: [
      {
        name: 'main',
        image: 'nginx',
        ports: [{ containerPort: 80 }, { containerPort: 443, protocol: 'TCP' }],
        env: [{ name: 'X', value: 'x' }],
      },
    ],
    volumes: [{ name: 'cfg', configMap: { name: 'cfg', items: [{ key: 'a', path: 'a' }] } }],
    hostAliases: [{ ip: '10.0.0.1', hostnames: ['a.example'] }],
    readinessGates: [{ conditionType: 'Ready' }],
  },
};

export const service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'svc' },
  spec: {
    selector: { app: 'web' },
    ports: [
      { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' },
      { name: 'https', port: 443, targetPort: 8443, protocol: 'TCP' },
    ],
    externalIPs: ['10.1.1.1'],
    type: 'ClusterIP',
  },
};

export const configMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cfg', labels: { a: '1' } },
  data: { 'a.conf': 'x=1', 'b.conf': 'y=2' },
};

export const clusterRole = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name: 'reader' },
  rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
};

export const clusterTrustBundle = {
  apiVersion: 'certificates.plat.io/v1alpha1',
  kind: 'ClusterTrustBundle',
  metadata: { name: 'example.com:signer:one', finalizers: ['f1'], labels: { a: 'b' } },
  spec: { signerName: 'example.com/signer', trustBundle: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' },
};

export const customResource = {
  apiVersion: 'stable.example.com/v1',
  kind: 'CronTab',
  metadata: { name: 'ct' },
  spec: { cronSpec: '* * * * */5', items: [{ name: 'a' }] },
};

export const statefulSet = {
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'db' },
  spec: {
    serviceName: 'db',
    selector: { matchLabels: { app: 'db' } },
    template: {
      metadata: { labels: { app: 'db' } },
      spec: {
        containers: [{ name: 'db', image: 'postgres:16', volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql' }] }],
        topologySpreadConstraints: [
          { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'db' } } },
        ],
      },
    },
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
  },
};

export const node = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'n1', labels: { zone: 'a' } },
  spec: {
    taints: [
      { key: 'dedicated', value: 'db', effect: 'NoSchedule' },
      { key: 'gpu', effect: 'NoExecute' },
    ],
    podCIDRs: ['10.0.0.0/24'],
  },
};

export const cronJob = {
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: 'cj' },
  spec: {
    schedule: '*/5 * * * *',
    jobTemplate: {
      spec: {
        backoffLimit: 2,
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'job', image: 'busybox', args: ['echo', 'hi'] }] } },
      },
    },
  },
};

export const serviceAccount = {
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name: 'sa' },
  secrets: [{ name: 's1' }],
  imagePullSecrets: [{ name: 'p1' }],
};

export const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'crontabs.stable.example.com' },
  spec: {
    group: 'stable.example.com',
    names: { kind: 'CronTab', plural: 'crontabs', shortNames: ['ct'] },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { cronSpec: { type: 'string' }, replicas: { type: 'integer' } } } },
          },
        },
      },
    ],
  },
};

export const networkPolicy = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'np' },
  spec: {
    podSelector: { matchLabels: { app: 'web' } },
    policyTypes: ['Ingress'],
    ingress: [{ from: [{ podSelector: { matchLabels: { role: 'fe' } } }], ports: [{ port: 80, protocol: 'TCP' }] }],
  },
};

export const podDisruptionBudget = {
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: { name: 'pdb' },
  spec: { minAvailable: 1, selector: { matchLabels: { app: 'web', tier: 'front' } } },
};
