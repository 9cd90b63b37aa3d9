import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Agent, request } from 'undici';
import { startOtlpReceiver } from '@plat/telemetry/testing';
import { adminCredentials, bundlePath, startApiServer, tempDir } from './apiserver-process.js';

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bundlePath(), ...args], { timeout: 30000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

describe('apiserver --tracing-config-file and --egress-selector-config-file', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir('plat-egress-tracing-');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('refuses to start on an invalid file, listing every field error', async () => {
    const tracing = path.join(dir, 'tracing-bad.yaml');
    fs.writeFileSync(tracing, 'apiVersion: apiserver.plat.io/v1beta1\nkind: TracingConfiguration\nsamplingRatePerMillion: -5\n');
    const r = await run(['--storage-backend=memory', `--data-dir=${path.join(dir, 'd1')}`, '--secure-port=0', `--tracing-config-file=${tracing}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `Error: --tracing-config-file: invalid configuration in ${tracing}:\n  samplingRatePerMillion: Invalid value: -5: sampling rate must be positive\n`,
    );

    const egress = path.join(dir, 'egress-bad.yaml');
    fs.writeFileSync(
      egress,
      'apiVersion: apiserver.plat.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: controlplane\n  connection:\n    proxyProtocol: Carrier\n',
    );
    const e = await run(['--storage-backend=memory', `--data-dir=${path.join(dir, 'd2')}`, '--secure-port=0', `--egress-selector-config-file=${egress}`]);
    expect(e.code).toBe(1);
    expect(e.stderr).toMatch(/^Error: --egress-selector-config-file: invalid configuration in .*egress-bad\.yaml:\n {2}egressSelections\[0\]\.connection\.proxyProtocol: Unsupported value: "Carrier"/);

    const missing = await run(['--storage-backend=memory', `--data-dir=${path.join(dir, 'd3')}`, '--tracing-config-file=nope.yaml']);
    expect(missing).toMatchObject({ code: 1, stderr: 'Error: --tracing-config-file: open nope.yaml: no such file or directory\n' });
  });

  it('exports the spans of a request to the OTLP endpoint of the tracing file', async () => {
    const receiver = await startOtlpReceiver();
    const tracing = path.join(dir, 'tracing.yaml');
    fs.writeFileSync(tracing, `apiVersion: apiserver.plat.io/v1beta1\nkind: TracingConfiguration\nendpoint: ${receiver.endpoint}\nsamplingRatePerMillion: 1000000\n`);
    const egress = path.join(dir, 'egress.yaml');
    fs.writeFileSync(
      egress,
      'apiVersion: apiserver.plat.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: cluster\n  connection:\n    proxyProtocol: Direct\n',
    );
    const server = await startApiServer({
      dataDir: path.join(dir, 'serve'),
      args: ['--storage-backend=memory', `--tracing-config-file=${tracing}`, `--egress-selector-config-file=${egress}`],
    });
    let dispatcher: Agent | undefined;
    try {
      dispatcher = new Agent({ connect: adminCredentials(server.kubeconfig) });
      const res = await request(`${server.url}/apis/certificates.plat.io/v1alpha1/clustertrustbundles`, {
        dispatcher,
        headers: { 'user-agent': 'e2e-tracing', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
      });
      expect(res.statusCode).toBe(200);
      await res.body.text();
      // The batch processor exports within its delay (5 s by default); wait for the spans, bounded.
      const deadline = Date.now() + 15_000;
      while (!receiver.spans.some((s) => s.traceId === '4bf92f3577b34da6a3ce929d0e0e4736') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      const spans = receiver.spans.filter((s) => s.traceId === '4bf92f3577b34da6a3ce929d0e0e4736');
      const root = spans.find((s) => s.parentSpanId === '00f067aa0ba902b7');
      expect(root).toMatchObject({
        name: 'GET /apis/certificates.plat.io/v1alpha1/clustertrustbundles',
        attributes: expect.objectContaining({ 'apiserver.verb': 'list', 'user_agent.original': 'e2e-tracing', 'http.response.status_code': 200 }),
        resource: expect.objectContaining({ 'service.name': 'apiserver' }),
      });
      expect(spans.filter((s) => s.parentSpanId === root!.spanId).map((s) => s.name).sort()).toEqual(
        expect.arrayContaining(['authentication', 'authorization', 'storage.list']),
      );
    } finally {
      await dispatcher?.close();
      expect(await server.stop()).toBe(0);
      await receiver.close();
    }
  });
});
