// @kubernetes/client-node 1.x, unchanged, against the started apiserver: configured from the
// generated admin kubeconfig, by-name operations on signer-prefixed names (the library encodes
// `:` as %3A), server-side apply, watch with bookmarks and an informer.
import { createCertificateAuthority } from '@plat/x509';
import { loadClientNode, type ClientNode } from './client-node-module.js';
import { kubectlSuite, waitFor, type KubectlSuite } from './kubectl.js';

const { k8s, loadError } = await loadClientNode();

const group = 'certificates.plat.io';
const version = 'v1alpha1';
const plural = 'clustertrustbundles';
const apiVersion = `${group}/${version}`;
const listPath = `/apis/${group}/${version}/${plural}`;

interface Bundle {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; resourceVersion?: string; labels?: Record<string, string>; uid?: string; managedFields?: Array<{ manager: string; operation: string }> };
  spec: { signerName?: string; trustBundle: string };
}

function bundle(name: string, trustBundle: string, signerName?: string, labels?: Record<string, string>): Bundle {
  return { apiVersion, kind: 'ClusterTrustBundle', metadata: { name, ...(labels ? { labels } : {}) }, spec: { ...(signerName ? { signerName } : {}), trustBundle } };
}

if (!k8s) {
  console.warn(`@kubernetes/client-node end-to-end tests skipped: the library cannot be loaded (${loadError})`);
  describe('@kubernetes/client-node end-to-end', () => {
    it.skip(`needs @kubernetes/client-node, which cannot be loaded here: ${loadError}`, () => undefined);
  });
} else {
  const lib = k8s;
  describe('@kubernetes/client-node end-to-end against the started apiserver', () => {
    let suite: KubectlSuite;
    let kc: InstanceType<ClientNode['KubeConfig']>;
    let custom: InstanceType<ClientNode['CustomObjectsApi']>;
    let objects: InstanceType<ClientNode['KubernetesObjectApi']>;
    let pem: string;
    let pem2: string;

    beforeAll(async () => {
      suite = kubectlSuite('plat-client-node');
      kc = new lib.KubeConfig();
      kc.loadFromFile((await suite.start()).kubeconfig);
      custom = kc.makeApiClient(lib.CustomObjectsApi);
      objects = lib.KubernetesObjectApi.makeApiClient(kc);
      pem = (await createCertificateAuthority({ commonName: 'client-node-root-1' })).certPem;
      pem2 = (await createCertificateAuthority({ commonName: 'client-node-root-2' })).certPem;
    });

    afterAll(async () => {
      expect(await suite?.stop()).toBe(0);
    });

    /** The HTTP status and Status body of a failed call. */
    async function failure(call: Promise<unknown>): Promise<{ code: number; body: Record<string, unknown> }> {
      try {
        await call;
      } catch (err) {
        if (err instanceof lib.ApiException) {
          const body = typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
          return { code: err.code, body };
        }
        throw err;
      }
      throw new Error('the call succeeded');
    }

    it('CustomObjectsApi: create, get, list by signer, replace, merge and JSON patch, delete on signer-prefixed names', async () => {
      const name = 'example.com:custom:one';
      const created = (await custom.createClusterCustomObject({ group, version, plural, body: bundle(name, pem, 'example.com/custom') })) as Bundle;
      expect(created.metadata.name).toBe(name);
      await custom.createClusterCustomObject({ group, version, plural, body: bundle('client-node-plain', pem) });

      const got = (await custom.getClusterCustomObject({ group, version, plural, name })) as Bundle;
      expect(got).toMatchObject({ apiVersion, kind: 'ClusterTrustBundle', metadata: { name, uid: created.metadata.uid }, spec: { signerName: 'example.com/custom' } });

      const bySigner = (await custom.listClusterCustomObject({ group, version, plural, fieldSelector: 'spec.signerName=example.com/custom' })) as { items: Bundle[]; kind: string };
      expect(bySigner.kind).toBe('ClusterTrustBundleList');
      expect(bySigner.items.map((b) => b.metadata.name)).toEqual([name]);

      const replaced = (await custom.replaceClusterCustomObject({ group, version, plural, name, body: { ...got, spec: { ...got.spec, trustBundle: pem2 } } })) as Bundle;
      expect(replaced.spec.trustBundle).toBe(pem2);
      expect(Number(replaced.metadata.resourceVersion)).toBeGreaterThan(Number(got.metadata.resourceVersion));

      // ClusterTrustBundle takes no unconditional update, as in Kubernetes.
      const unconditional = await failure(custom.replaceClusterCustomObject({ group, version, plural, name, body: bundle(name, pem, 'example.com/custom') }));
      expect(unconditional.code).toBe(422);
      expect(unconditional.body['message']).toBe(`clustertrustbundles.certificates.plat.io "${name}" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`);

      const merged = (await custom.patchClusterCustomObject(
        { group, version, plural, name, body: { metadata: { labels: { via: 'merge' } } } },
        lib.setHeaderOptions('Content-Type', lib.PatchStrategy.MergePatch),
      )) as Bundle;
      expect(merged.metadata.labels).toEqual({ via: 'merge' });
      // The generated client's default patch type is a JSON patch.
      const jsonPatched = (await custom.patchClusterCustomObject({ group, version, plural, name, body: [{ op: 'add', path: '/metadata/labels/json', value: 'yes' }] })) as Bundle;
      expect(jsonPatched.metadata.labels).toEqual({ via: 'merge', json: 'yes' });

      const deleted = (await custom.deleteClusterCustomObject({ group, version, plural, name })) as { kind: string; status: string; details: { name: string } };
      expect(deleted).toMatchObject({ kind: 'Status', status: 'Success', details: { name } });
      const gone = await failure(custom.getClusterCustomObject({ group, version, plural, name }));
      expect(gone.code).toBe(404);
      expect(gone.body['message']).toBe(`clustertrustbundles.certificates.plat.io "${name}" not found`);
    });

    it('KubernetesObjectApi: finds the resource by discovery, creates and updates by server-side apply, reads, lists and deletes', async () => {
      const name = 'example.com:objects:applied';
      const spec = bundle(name, pem, 'example.com/objects', { tier: 'one' });
      const created = (await objects.patch(spec, undefined, undefined, 'client-node-e2e', true, lib.PatchStrategy.ServerSideApply)) as Bundle;
      expect(created.metadata.name).toBe(name);
      expect(created.metadata.managedFields).toEqual([expect.objectContaining({ manager: 'client-node-e2e', operation: 'Apply' })]);
      const updated = (await objects.patch(bundle(name, pem, 'example.com/objects', { tier: 'two' }), undefined, undefined, 'client-node-e2e', true, lib.PatchStrategy.ServerSideApply)) as Bundle;
      expect(updated.metadata.labels).toEqual({ tier: 'two' });
      expect(Number(updated.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));

      const read = (await objects.read({ apiVersion, kind: 'ClusterTrustBundle', metadata: { name } })) as Bundle;
      expect(read.metadata.resourceVersion).toBe(updated.metadata.resourceVersion);
      const listed = (await objects.list(apiVersion, 'ClusterTrustBundle', undefined, undefined, undefined, undefined, undefined, 'tier=two')) as { items: Bundle[] };
      expect(listed.items.map((b) => b.metadata.name)).toEqual([name]);

      const replaced = (await objects.replace({ ...read, metadata: { ...read.metadata, labels: { tier: 'three' } } })) as Bundle;
      expect(replaced.metadata.labels).toEqual({ tier: 'three' });
      await objects.delete({ apiVersion, kind: 'ClusterTrustBundle', metadata: { name } });
      expect((await failure(objects.read({ apiVersion, kind: 'ClusterTrustBundle', metadata: { name } }))).code).toBe(404);
    });

    it('Watch: a BOOKMARK 2 s before timeoutSeconds carries writes outside the selection; a watch resumed from it gets only newer events', async () => {
      const name = 'example.com:watch:watched';
      const watched = (await custom.createClusterCustomObject({ group, version, plural, body: bundle(name, pem, 'example.com/watch') })) as Bundle;
      const watch = new lib.Watch(kc);
      const seen: Array<{ type: string; rv: string; name?: string; annotations?: unknown }> = [];
      let ended: unknown = 'not yet';
      const started = Date.now();
      await watch.watch(
        listPath,
        { resourceVersion: watched.metadata.resourceVersion, allowWatchBookmarks: true, timeoutSeconds: 3, fieldSelector: `metadata.name=${name}` },
        (type, obj: Bundle) => seen.push({ type, rv: obj.metadata.resourceVersion ?? '', name: obj.metadata.name }),
        (err) => (ended = err),
      );
      const other = (await custom.createClusterCustomObject({ group, version, plural, body: bundle('example.com:watch:other', pem, 'example.com/watch') })) as Bundle;
      await waitFor(() => ended !== 'not yet', 15_000, 'the watch to end at its timeoutSeconds');
      const elapsed = Date.now() - started;
      expect(ended).toBeNull();
      expect(elapsed).toBeGreaterThanOrEqual(2900);
      // No event of the watched object, one bookmark (the minute period is far away) at the other write's revision.
      expect(seen.map((e) => e.type)).toEqual(['BOOKMARK']);
      expect(Number(seen[0]!.rv)).toBeGreaterThanOrEqual(Number(other.metadata.resourceVersion));

      const resumed: string[] = [];
      const req = await watch.watch(listPath, { resourceVersion: seen[0]!.rv, fieldSelector: `metadata.name=${name}` }, (type, obj: Bundle) => resumed.push(`${type} ${obj.metadata.name}`), () => undefined);
      await custom.patchClusterCustomObject({ group, version, plural, name, body: [{ op: 'add', path: '/metadata/labels', value: { resumed: 'yes' } }] });
      await waitFor(() => resumed.length > 0, 15_000, 'the resumed watch to see the change');
      req.abort();
      expect(resumed).toEqual([`MODIFIED ${name}`]);
    });

    it('an informer lists, then follows creates, updates and deletes made by another client', async () => {
      const informer = lib.makeInformer<Bundle>(
        kc,
        listPath,
        () => custom.listClusterCustomObject({ group, version, plural, labelSelector: 'informed=yes' }) as Promise<{ items: Bundle[]; metadata: { resourceVersion: string } }>,
        'informed=yes',
      );
      const events: string[] = [];
      let connects = 0;
      informer.on('add', (o: Bundle) => events.push(`add ${o.metadata.name}`));
      informer.on('update', (o: Bundle) => events.push(`update ${o.metadata.name} ${o.metadata.labels?.['step'] ?? ''}`));
      informer.on('delete', (o: Bundle) => events.push(`delete ${o.metadata.name}`));
      informer.on('connect', () => connects++);
      const first = 'example.com:informer:first';
      await custom.createClusterCustomObject({ group, version, plural, body: bundle(first, pem, 'example.com/informer', { informed: 'yes' }) });
      await informer.start();
      try {
        await waitFor(() => events.includes(`add ${first}`), 15_000, 'the listed object');
        const second = 'example.com:informer:second';
        await custom.createClusterCustomObject({ group, version, plural, body: bundle(second, pem, 'example.com/informer', { informed: 'yes' }) });
        await custom.patchClusterCustomObject(
          { group, version, plural, name: second, body: { metadata: { labels: { step: 'two' } } } },
          lib.setHeaderOptions('Content-Type', lib.PatchStrategy.MergePatch),
        );
        await custom.deleteClusterCustomObject({ group, version, plural, name: first });
        await waitFor(() => events.length >= 4, 15_000, 'the watched changes');
        expect(events).toEqual([`add ${first}`, `add ${second}`, `update ${second} two`, `delete ${first}`]);
        expect(informer.list().map((o) => o.metadata?.name)).toEqual([second]);
        expect(informer.get(second)?.metadata?.labels?.['step']).toBe('two');
        // One list and one watch that never had to start over.
        expect(connects).toBe(1);
      } finally {
        await informer.stop();
      }
    });
  });
}
