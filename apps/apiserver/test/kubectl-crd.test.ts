// CustomResourceDefinitions with the real kubectl against the started apiserver: the walkthrough
// of Kubernetes' "Extend the Kubernetes API with CustomResourceDefinitions" task (CronTab).
import { parse } from 'yaml';
import { hasKubectl, kubectl, kubectlSuite, type KubectlSuite } from './kubectl.js';

const crontabCrd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                cronSpec:
                  type: string
                image:
                  type: string
                replicas:
                  type: integer
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames:
    - ct
`;

const crontab = (name: string, replicas: unknown = 1) => `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: ${name}
spec:
  cronSpec: "* * * * */5"
  image: my-awesome-cron-image
  replicas: ${JSON.stringify(replicas)}
`;

if (!hasKubectl) {
  describe('kubectl and CustomResourceDefinitions', () => {
    it.skip('needs the real kubectl at /usr/bin/kubectl, which is not installed here: skipped', () => undefined);
  });
} else {
  describe('kubectl and CustomResourceDefinitions against the started apiserver', () => {
    let suite: KubectlSuite;
    let env: { kubeconfig: string; home: string };

    beforeAll(async () => {
      suite = kubectlSuite('plat-crd');
      env = await suite.start();
    });

    afterAll(async () => {
      expect(await suite?.stop()).toBe(0);
    });

    it('applies a CRD, waits for Established, then creates, gets and lists its custom resources', async () => {
      const applied = await kubectl(env, ['apply', '-f', suite.write('crd.yaml', crontabCrd)]);
      expect([applied.code, applied.stderr, applied.stdout.trim()]).toEqual([0, '', 'customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created']);
      const waited = await kubectl(env, ['wait', '--for', 'condition=established', '--timeout=30s', 'customresourcedefinitions.apiextensions.k8s.io/crontabs.stable.example.com']);
      expect([waited.code, waited.stderr]).toEqual([0, '']);
      expect(waited.stdout).toContain('condition met');

      const created = await kubectl(env, ['create', '-f', suite.write('ct.yaml', crontab('my-new-cron-object'))]);
      expect([created.code, created.stderr, created.stdout.trim()]).toEqual([0, '', 'crontab.stable.example.com/my-new-cron-object created']);
      const applyCr = await kubectl(env, ['apply', '-f', suite.write('ct2.yaml', crontab('second', 3))]);
      expect([applyCr.code, applyCr.stderr]).toEqual([0, '']);

      const list = await kubectl(env, ['get', 'ct']);
      expect(list.code).toBe(0);
      expect(list.stdout.split('\n')[0]!.split(/\s+/)).toEqual(['NAME', 'AGE']);
      expect(list.stdout).toMatch(/^my-new-cron-object\s/m);
      const got = parse((await kubectl(env, ['get', 'crontab', 'second', '-o', 'yaml'])).stdout);
      expect(got).toMatchObject({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'second', namespace: 'default', generation: 1 }, spec: { replicas: 3 } });
      const resources = await kubectl(env, ['api-resources', '--api-group=stable.example.com', '--no-headers']);
      expect(resources.stdout.trim().split(/\s+/)).toEqual(['crontabs', 'ct', 'stable.example.com/v1', 'true', 'CronTab']);
      const explain = await kubectl(env, ['explain', 'crontab.spec']);
      expect(explain.code).toBe(0);
      expect(explain.stdout).toContain('replicas\t<integer>');
    });

    it('shows the schema’s field error, and refuses strategic merge patch as kube-apiserver does for custom resources', async () => {
      const bad = await kubectl(env, ['create', '--validate=false', '-f', suite.write('bad.yaml', crontab('bad', 'many'))]);
      expect(bad.code).toBe(1);
      expect(bad.stderr.trim()).toBe(
        'The CronTab "bad" is invalid: spec.replicas: Invalid value: "many": spec.replicas in body must be of type integer: "string"',
      );
      const merge = await kubectl(env, ['patch', 'ct', 'second', '--type=merge', '-p', '{"spec":{"replicas":4}}']);
      expect([merge.code, merge.stdout.trim()]).toEqual([0, 'crontab.stable.example.com/second patched']);
      const smp = await kubectl(env, ['patch', 'ct', 'second', '-p', '{"spec":{"replicas":5}}']);
      expect(smp.code).toBe(1);
      expect(smp.stderr).toContain('application/strategic-merge-patch+json is not supported by stable.example.com/v1, Kind=CronTab');
    });

    it('deletes the custom resources with their CRD and stops serving them', async () => {
      const del = await kubectl(env, ['delete', 'customresourcedefinitions.apiextensions.k8s.io', 'crontabs.stable.example.com']);
      expect([del.code, del.stderr]).toEqual([0, '']);
      const crds = await kubectl(env, ['get', 'customresourcedefinitions.apiextensions.k8s.io', '-o', 'name']);
      expect(crds.stdout.trim()).toBe('');
      const gone = await kubectl(env, ['get', '--raw', '/apis/stable.example.com/v1/crontabs']);
      expect(gone.code).toBe(1);
      expect(gone.stderr).toContain('NotFound');
      // Created again, the CRD serves none of the old objects: they were deleted with it.
      expect((await kubectl(env, ['apply', '-f', suite.write('crd.yaml', crontabCrd)])).code).toBe(0);
      expect((await kubectl(env, ['wait', '--for', 'condition=established', '--timeout=30s', 'crd/crontabs.stable.example.com'])).code).toBe(0);
      const empty = await kubectl(env, ['get', 'ct', '-A', '-o', 'name']);
      expect([empty.code, empty.stdout.trim()]).toEqual([0, '']);
    });
  });
}
