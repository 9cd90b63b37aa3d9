// The Python kubernetes client (Debian's python3-kubernetes, run by /usr/bin/python3), unchanged,
// against the started apiserver: test/python-client.py configures it from the generated admin
// kubeconfig, runs CustomObjectsApi, DynamicClient (discovery, server-side apply) and watch steps
// on signer-prefixed names, and prints a JSON report that this test asserts.
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createCertificateAuthority } from '@plat/x509';
import { kubectlSuite, type KubectlSuite } from './kubectl.js';

const python = '/usr/bin/python3';
const script = path.join(import.meta.dirname, 'python-client.py');

/** Why the client cannot be loaded here ('' when it can). */
function unavailable(): string {
  if (!fs.existsSync(python)) return `${python} is not installed`;
  const probe = spawnSync(python, ['-c', 'import kubernetes; print(kubernetes.__version__)'], { encoding: 'utf8', timeout: 30000 });
  if (probe.status !== 0) return `${python} cannot import kubernetes (install python3-kubernetes): ${(probe.stderr || probe.error?.message || '').trim().split('\n').pop()}`;
  return '';
}

type Failure = { status: number; body: { message: string; reason: string; code: number } };
interface Report {
  customObjects: {
    created: string;
    got: { name: string; kind: string; signerName: string };
    listed: string[];
    replacedNewer: boolean;
    unconditional: Failure;
    patchedLabels: Record<string, string>;
    deleted: { kind: string; status: string; name: string };
    gone: Failure;
  };
  dynamic: {
    resource: { name: string; namespaced: boolean; kind: string; shortNames: string[] };
    created: string;
    got: string;
    listed: string[];
    strategic: Record<string, string>;
    merge: Record<string, string>;
    applied: { labels: Record<string, string>; managers: string[] };
    appliedNew: string;
    deleted: string;
  };
  watch: { events: Array<{ type: string; rv: string; at: number }>; elapsed: number; otherRv: string; resumed: string[] };
}

const reason = unavailable();
if (reason) {
  console.warn(`Python kubernetes client end-to-end tests skipped: ${reason}`);
  describe('Python kubernetes client end-to-end', () => {
    it.skip(`needs the Python kubernetes client: ${reason}`, () => undefined);
  });
} else {
  describe('Python kubernetes client end-to-end against the started apiserver', () => {
    let suite: KubectlSuite;
    let report: Report;

    beforeAll(async () => {
      suite = kubectlSuite('plat-python-client');
      const { kubeconfig, home } = await suite.start();
      const pems = [(await createCertificateAuthority({ commonName: 'python-root-1' })).certPem, (await createCertificateAuthority({ commonName: 'python-root-2' })).certPem];
      const pemFile = suite.write('anchors.pem', pems.map((p) => p.trim()).join('\n---\n'));
      // One run of the script does every step; each test below asserts its part of the report.
      const stdout = await new Promise<string>((resolve, reject) => {
        execFile(
          python,
          [script, kubeconfig, path.join(home, 'discovery-cache.json'), pemFile],
          { env: { PATH: process.env.PATH ?? '/usr/bin', HOME: home }, timeout: 60000, maxBuffer: 4 * 1024 * 1024 },
          (err, out, errOut) => (err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out)),
        );
      });
      report = JSON.parse(stdout) as Report;
    });

    afterAll(async () => {
      expect(await suite?.stop()).toBe(0);
    });

    it('CustomObjectsApi: create, get, list by signer, replace, merge patch and delete on a signer-prefixed name', () => {
      const r = report.customObjects;
      expect(r).not.toHaveProperty('error');
      const name = 'example.com:python:one';
      expect(r.created).toBe(name);
      expect(r.got).toEqual({ name, kind: 'ClusterTrustBundle', signerName: 'example.com/python' });
      expect(r.listed).toEqual([name]);
      expect(r.replacedNewer).toBe(true);
      expect(r.unconditional.status).toBe(422);
      expect(r.unconditional.body.message).toBe(`clustertrustbundles.certificates.plat.io "${name}" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`);
      expect(r.patchedLabels).toEqual({ via: 'merge' });
      expect(r.deleted).toEqual({ kind: 'Status', status: 'Success', name });
      expect(r.gone.status).toBe(404);
      expect(r.gone.body.message).toBe(`clustertrustbundles.certificates.plat.io "${name}" not found`);
    });

    it('DynamicClient: discovers the resource, creates, gets, lists, patches (strategic, merge), applies server-side and deletes', () => {
      const r = report.dynamic;
      expect(r).not.toHaveProperty('error');
      const name = 'example.com:dynamic:one';
      expect(r.resource).toEqual({ name: 'clustertrustbundles', namespaced: false, kind: 'ClusterTrustBundle', shortNames: ['ctb'] });
      expect(r.created).toBe(name);
      expect(r.got).toBe('example.com/dynamic');
      expect(r.listed).toEqual([name]);
      expect(r.strategic).toEqual({ tier: 'two' });
      expect(r.merge).toEqual({ tier: 'two', m: 'yes' });
      expect(r.applied.labels).toEqual({ tier: 'two', m: 'yes', applied: 'yes' });
      expect(r.applied.managers).toEqual(expect.arrayContaining(['python-e2e/Apply']));
      expect(r.appliedNew).toBe('example.com:dynamic:applied');
      expect(r.deleted).toBe('Success');
    });

    it('watch: a BOOKMARK 2 s before timeoutSeconds carries a write outside the selection; a DynamicClient watch resumed from it sees only the newer change', () => {
      const r = report.watch;
      expect(r).not.toHaveProperty('error');
      expect(r.events.map((e) => e.type)).toEqual(['BOOKMARK']);
      expect(Number(r.events[0]!.rv)).toBeGreaterThanOrEqual(Number(r.otherRv));
      expect(r.events[0]!.at).toBeLessThan(2.5);
      expect(r.elapsed).toBeGreaterThanOrEqual(2.9);
      expect(r.resumed).toEqual(['MODIFIED example.com:pywatch:watched yes']);
    });
  });
}
