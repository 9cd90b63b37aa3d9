import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeObjects } from './object-stream.js';
import { buildResources } from './resource-builder.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const manifests = path.join(here, '..', 'test', 'manifests');
const kustomize = path.join(here, '..', 'test', 'kustomize');
const names = (infos: { object: { metadata?: { name?: string } } }[]) => infos.map((i) => i.object.metadata?.name);

describe('buildResources', () => {
  it('reads a file, skipping empty YAML documents', async () => {
    const infos = await buildResources({ filenames: [path.join(manifests, 'multi.yaml')] });
    expect(names(infos)).toEqual(['a', 'b']);
    expect(infos[0].source).toBe(path.join(manifests, 'multi.yaml'));
  });

  it('reads a directory (json, yaml, yml only) and flattens List kinds; -R descends', async () => {
    expect(names(await buildResources({ filenames: [manifests] }))).toEqual(['web', 'svc', 'a', 'b']);
    expect(names(await buildResources({ filenames: [manifests], recursive: true }))).toEqual(['web', 'svc', 'a', 'b', 'deeper', 'nested']);
  });

  it('reads standard input for -', async () => {
    const infos = await buildResources({ filenames: ['-'], readStdin: async () => '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"in"}}' });
    expect(infos).toEqual([{ source: 'STDIN', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'in' } } }]);
  });

  it('reads http URLs and reports failures as kubectl does', async () => {
    const server = createServer((req, res) => {
      if (req.url === '/cm.yaml') res.end('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: remote}\n');
      else {
        res.statusCode = 404;
        res.end('nope');
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect(names(await buildResources({ filenames: [`${base}/cm.yaml`] }))).toEqual(['remote']);
      await expect(buildResources({ filenames: [`${base}/missing.yaml`] })).rejects.toThrow(
        `unable to read URL "${base}/missing.yaml", server reported 404 Not Found, status code=404`,
      );
    } finally {
      server.close();
    }
  });

  it('fails with kubectl\'s texts for missing paths, empty folders, bad documents and -k with -f', async () => {
    await expect(buildResources({ filenames: ['nope.yaml'] })).rejects.toThrow('the path "nope.yaml" does not exist');
    const deeper = path.join(manifests, 'nested', 'deeper', 'd.yml');
    await expect(buildResources({ filenames: [kustomize, deeper] })).rejects.toThrow(`error reading [${kustomize}]: recognized file extensions are [.json .yaml .yml]`);
    // As in kubectl, a folder without inputs is an error only while nothing else was found.
    expect(names(await buildResources({ filenames: [deeper, kustomize] }))).toEqual(['deeper']);
    await expect(buildResources({ filenames: ['nope1', deeper, 'nope2'] })).rejects.toThrow('[the path "nope1" does not exist, the path "nope2" does not exist]');
    await expect(buildResources({ filenames: ['x'], kustomize: 'dir' })).rejects.toThrow('only one of -f or -k can be specified');
    await expect(buildResources({ recursive: true, kustomize: 'dir' })).rejects.toThrow('only one of -f or -k can be specified');
    expect(() => decodeObjects('metadata:\n  name: x\n', 'f.yaml')).toThrow(`unable to decode "f.yaml": Object 'Kind' is missing in '{"metadata":{"name":"x"}}'`);
    expect(() => decodeObjects('{"kind":', 'f.json')).toThrow('error parsing f.json: unexpected EOF');
    expect(() => decodeObjects('a: [\n', 'f.yaml')).toThrow(/^error parsing f.yaml: error converting YAML to JSON: yaml: line 1/);
  });
});

describe('kustomize (-k)', () => {
  it('runs the common subset: resources, patches, namespace, prefix/suffix, labels, annotations, images', async () => {
    const infos = await buildResources({ kustomize: path.join(kustomize, 'overlay') });
    const [deploy, svc] = infos.map((i) => i.object) as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(deploy.metadata).toEqual({ name: 'p-web-v2', namespace: 'prod', labels: { app: 'web', team: 'a' }, annotations: { owner: 'ops' } });
    expect(deploy.spec.replicas).toBe(4);
    expect(deploy.spec.selector.matchLabels).toEqual({ app: 'web', team: 'a' });
    expect(deploy.spec.template.metadata).toEqual({ labels: { app: 'web', team: 'a' }, annotations: { owner: 'ops' } });
    expect(deploy.spec.template.spec.containers).toEqual([
      { name: 'web', image: 'nginx:1.27', args: ['--verbose'], env: [{ name: 'MODE', value: 'prod' }] },
      { name: 'sidecar', image: 'mirror.example/proxy@sha256:0123456789abcdef' },
    ]);
    expect(svc.metadata.name).toBe('p-web-v2');
    expect(svc.spec.selector).toEqual({ app: 'web', team: 'a' });
    expect(svc.spec.ports).toEqual([{ port: 8080 }]);
  });

  it('names the missing kustomization file', async () => {
    await expect(buildResources({ kustomize: manifests })).rejects.toThrow(
      `unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '${manifests}'`,
    );
  });
});
