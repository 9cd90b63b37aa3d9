import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// The code tools/kube-codegen/generate.mjs writes from Kubernetes' vendored generated.proto files
// (docs/architecture.md, "Generated code"): the checked-in files are exactly what it writes now,
// and the OpenAPI definitions agree with Kubernetes' own.
const root = path.resolve(import.meta.dirname, '../../..');
const generator = path.join(root, 'tools/kube-codegen/generate.mjs');
const generated = [
  'packages/server/src/openapi/meta-definitions.generated.ts',
  'packages/server/src/protobuf-messages.generated.ts',
  'packages/registry/src/kind-definitions.generated.ts',
  'packages/registry/src/kind-protobuf.generated.ts',
];
const regenerate = 'node tools/kube-codegen/generate.mjs';

type Schema = Record<string, unknown>;

/** The `export const name: Record<…> = {…};` JSON literals of a generated definitions module. */
function exportedRecords(text: string): Map<string, Record<string, Schema>> {
  const out = new Map<string, Record<string, Schema>>();
  for (const m of text.matchAll(/^export const (\w+): Record<string, \w+> = (\{\}|\{\n[\s\S]*?\n\});$/gm)) {
    out.set(m[1]!, JSON.parse(m[2]!) as Record<string, Schema>);
  }
  return out;
}

const withoutDescriptions = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutDescriptions);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'description').map(([k, v]) => [k, withoutDescriptions(v)]));
  }
  return value;
};

describe('generated code (tools/kube-codegen)', () => {
  let out: string;
  beforeAll(() => {
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-kube-codegen-'));
    execFileSync(process.execPath, [generator, '--out', out], { cwd: root, stdio: 'pipe' });
  });
  afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

  it.each(generated)('%s is what the generator writes now', (file) => {
    const committed = fs.readFileSync(path.join(root, file), 'utf8');
    const fresh = fs.readFileSync(path.join(out, file), 'utf8');
    if (committed !== fresh) throw new Error(`${file} differs from the generator's output: run \`${regenerate}\` and commit the result`);
    expect(committed.split('\n').slice(0, 4).join('\n')).toMatch(/k8s\.io\/api v\d+\.\d+\.\d+\S* \([0-9a-f]{40}\) and k8s\.io\/apimachinery v\S+ \([0-9a-f]{40}\)/);
  });

  it('refuses an input whose sha256 is not the locked one', () => {
    // A copy inside the repository, where the generator still resolves protobufjs.
    const cache = path.join(root, 'node_modules/.cache');
    fs.mkdirSync(cache, { recursive: true });
    const copy = fs.mkdtempSync(path.join(cache, 'kube-codegen-tampered-'));
    try {
      fs.cpSync(path.join(root, 'tools/kube-codegen'), copy, { recursive: true });
      const proto = path.join(copy, 'inputs/k8s.io/api/rbac/v1/generated.proto');
      fs.appendFileSync(proto, '\n// changed\n');
      let stderr = '';
      try {
        execFileSync(process.execPath, [path.join(copy, 'generate.mjs'), '--out', path.join(copy, 'out')], { cwd: root, stdio: 'pipe' });
      } catch (err) {
        stderr = String((err as { stderr?: Buffer }).stderr);
      }
      expect(stderr).toContain('inputs/k8s.io/api/rbac/v1/generated.proto: sha256');
      expect(fs.existsSync(path.join(copy, 'out'))).toBe(false);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });

  // tools/kube-codegen/reference: the definitions of Kubernetes 1.36's published OpenAPI v2
  // document (api/openapi-spec/swagger.json) for the kinds plat serves and the meta types, without
  // their descriptions, whose texts changed upstream between 1.36 and the pinned version.
  it('writes the definitions Kubernetes publishes, under Kubernetes’ and plat’s names', () => {
    const reference = JSON.parse(fs.readFileSync(path.join(root, 'tools/kube-codegen/reference/kubernetes-1.36-definitions.json'), 'utf8')) as Record<string, Schema>;
    const all: Record<string, Schema> = {};
    for (const file of [generated[0]!, generated[2]!]) {
      for (const [name, records] of exportedRecords(fs.readFileSync(path.join(root, file), 'utf8'))) if (name !== 'queryParameters') Object.assign(all, records);
    }
    expect(Object.keys(reference).length).toBeGreaterThan(60);
    for (const [name, schema] of Object.entries(reference)) expect([name, withoutDescriptions(all[name])]).toEqual([name, schema]);
    // plat's names carry the same schema with plat's group and definition prefix.
    const plat = JSON.stringify(withoutDescriptions(all['io.plat.api.certificates.v1alpha1.ClusterTrustBundleList']));
    const k8s = JSON.stringify(reference['io.k8s.api.certificates.v1alpha1.ClusterTrustBundleList']);
    expect(plat).toBe(k8s.replaceAll('io.k8s.api.certificates', 'io.plat.api.certificates').replaceAll('certificates.k8s.io', 'certificates.plat.io'));
    for (const version of ['v1alpha1', 'v1beta1', 'v1']) {
      for (const prefix of ['io.k8s', 'io.plat']) expect(all[`${prefix}.api.certificates.${version}.ClusterTrustBundle`]).toBeDefined();
    }
  });
});
