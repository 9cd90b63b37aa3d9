import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clientctl } from '../test/harness.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'clientctl-local-'));
const file = (name: string, text: string) => {
  const p = path.join(tmp, name);
  writeFileSync(p, text);
  return p;
};
const kubectl = '/usr/bin/kubectl';
const haveKubectl = existsSync(kubectl);

const deploy = file(
  'deploy.yaml',
  `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.25
        ports: [{containerPort: 80}]
        env: [{name: A, value: "1"}, {name: B, value: "2"}]
      - name: sidecar
        image: proxy:v1
      tolerations: [{key: k, operator: Exists}]
`,
);
const pod = file(
  'pod.json',
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'ns1', annotations: { a: 'b' } },
    spec: { containers: [{ name: 'c', image: 'busybox', volumeMounts: [{ name: 'v', mountPath: '/v' }] }], volumes: [{ name: 'v', emptyDir: {} }] },
  }),
);
const service = file(
  'service.yaml',
  `apiVersion: v1
kind: Service
metadata: {name: svc}
spec:
  selector: {app: web}
  ports:
  - {name: http, port: 80, targetPort: 8080}
  - {name: https, port: 443}
`,
);
const cm = file('cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {a: "1", b: "2"}\n');
const custom = file('custom.yaml', 'apiVersion: x.io/v1\nkind: Foo\nmetadata: {name: f}\nspec: {list: [1, 2]}\n');
const multi = file('multi.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n');
const patchFile = file('patch.yaml', 'spec:\n  replicas: 5\n');
const emptyPatchFile = file('empty-patch.yaml', '');
const blankPatchFile = file('blank-patch.yaml', ' \n\t');

/** A folder of inputs as kubectl reads them: byte order, only .json/.yaml/.yml, -R for sub-folders. */
const dir = (name: string, files: Record<string, string>) => {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(tmp, name, rel)), { recursive: true });
    writeFileSync(path.join(tmp, name, rel), text);
  }
  return path.join(tmp, name);
};
const cmText = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\n`;
const folder = dir('folder', {
  'b.yaml': `${cmText('b1')}---\n${cmText('b2')}`,
  'a.json': JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a1' } }, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a2' } }] }),
  'C.yml': cmText('c1'),
  '.dot.yaml': cmText('dot'),
  'notes.txt': cmText('ignored'),
  'sub/s.yaml': cmText('s1'),
  '.hidden/h.yaml': cmText('h1'),
});
// Objects that fail to patch are reported after the others; inputs that fail to read, last.
const broken = dir('broken', {
  'a.yaml': cmText('a'),
  'b.yaml': `${cmText('b')}--- !x\n${cmText('never')}`,
  'c.yaml': `${cmText('c')}---\nfoo: 1\n---\n${cmText('c2')}`,
  'd.json': '{"a": ',
  'e.yaml': 'apiVersion: x.io/v1\nkind: Foo\nmetadata: {name: e}\n',
  'f.json': '{"apiVersion":"v1","kind":"List","items":[{"kind":"ConfigMap","metadata":{"name":"x"}},{"apiVersion":"v1","metadata":{"name":"y"}},{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"z"}}]}',
  'g.yaml': 'apiVersion: x.io/v1\nkind: Foo\nmetadata: {name: g}\n',
  'h.json': '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"j"}}\n{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"k"}} [1]',
});
// Keys with dots and backslashes, FieldsV1 keys (`.`, `f:...`), nulls, ints and floats for jsonpath.
const keyed = file(
  'keyed.json',
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'cfg',
      labels: { 'app.kubernetes.io/name': 'web', 'a.b': 'x', a: 'z', 'c\\d': 'w', 'a.b.': 't' },
      managedFields: [{ apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:a.b': {} } } }, manager: 'm', operation: 'Update' }],
    },
    data: { a: '1', 'x.y': '2', x: '3', 'x..y': '4', 'x\\': '5' },
    spec: { n: null, list: [{ name: 'a', v: 1, f: 1.5, b: true }, { name: 'b', v: 2, f: 2.5, b: false }, { name: 'c', v: 3 }], nums: [1, 2, 3, 4, 5], s: 'héllo' },
  }),
);
const jsonpaths = [
  '{.metadata.labels.app\\.kubernetes\\.io/name}', '{.metadata.labels.a\\.b}', '{.metadata.labels.a\\.b\\.}', "{.metadata.labels['app.kubernetes.io/name']}",
  '{.metadata.labels.c\\\\d}', '{.data.x\\.\\.y}', '{..x\\.y}', '{$.data.x\\.y}', '{range .data}{.x\\.y}{end}', '{.data.x\\.y}{"\\n"}{.data.a}',
  '{.metadata.managedFields[0].fieldsV1.f:data.\\.}', '{.metadata.managedFields[*].fieldsV1.f:metadata.f:labels}', '{.spec.n}',
  '{.spec.list[?(@.v>1)].name}', '{.spec.list[?(@.f)].name}', '{.spec.list[?(@.v>1.5)].name}', '{.spec.list[?(@.b==true)].name}', '{.spec.list[?(@.v=="2")].name}',
  '{.spec.nums[1:3]}', '{.spec.nums[-2:]}', '{.spec.nums[::2]}', '{.spec.nums[7]}', '{.spec.nums[3:1]}', '{.spec.list[0,2].name}',
  '{range .spec.list[*]}{.name}:{.v}{"\\n"}{end}', '{.data[?(@.x\\.y=="2")]}', '{.data["x.y"]}', '{.data.x\\ y}', "{'lit'}{\"\\t\\u00e9\\x41\"}", 'x{.spec.s}y',
];
// Metadata of the wrong types (a YAML 1.1 boolean as a label value) fails to decode, as in kubectl.
const badMetadata = dir('bad-metadata', {
  'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {enabled: y}}\n',
  'b.json': '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","ownerReferences":[{"uid":5}],"creationTimestamp":1}}',
  'c.yaml': `${cmText('c')}---\napiVersion: v1\nkind: List\nmetadata: {resourceVersion: 3}\nitems: []\n`,
});
const onlyUnreadable = dir('unreadable', { 'a.yaml': '----\n', 'b.json': '{"a": tru}', 'c.yaml': '- 1\n', 'd.yaml': 'kind: 3\n' });

/** `patch --local` cases compared byte for byte with kubectl 1.32's output (stdout, stderr, exit code). */
const differential: { name: string; args: string[] }[] = [
  { name: 'strategic: scalar', args: ['-f', deploy, '-p', '{"spec":{"replicas":3}}', '-o', 'json'] },
  { name: 'strategic: container merged by name', args: ['-f', deploy, '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}}}', '-o', 'json'] },
  { name: 'strategic: new container appended', args: ['-f', deploy, '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"extra","image":"x"}]}}}}', '-o', 'json'] },
  { name: 'strategic: env merged by name, null deletes', args: ['-f', deploy, '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"B","value":"9"},{"name":"C","value":"3"}]}]}},"metadata":{"labels":{"app":null}}}}', '-o', 'json'] },
  { name: 'strategic: $patch delete of a container', args: ['-f', deploy, '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","$patch":"delete"}]}}}}', '-o', 'json'] },
  { name: 'strategic: list without merge key replaced', args: ['-f', deploy, '-p', '{"spec":{"template":{"spec":{"tolerations":[{"key":"z","operator":"Exists"}]}}}}', '-o', 'json'] },
  { name: 'strategic: pod volumes and mounts', args: ['-f', pod, '-p', '{"spec":{"volumes":[{"name":"w","emptyDir":{}}],"containers":[{"name":"c","volumeMounts":[{"name":"w","mountPath":"/w"}]}]}}', '-o', 'json'] },
  { name: 'strategic: service ports by port', args: ['-f', service, '-p', '{"spec":{"ports":[{"port":443,"targetPort":8443}]}}', '-o', 'json'] },
  { name: 'strategic: YAML patch', args: ['-f', deploy, '-p', 'metadata: {annotations: {x: y}}', '-o', 'yaml'] },
  { name: 'strategic: missing merge key', args: ['-f', deploy, '-p', '{"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}'] },
  { name: 'strategic: custom kind refused', args: ['-f', custom, '-p', '{"spec":{"a":1}}'] },
  { name: 'merge: custom kind', args: ['-f', custom, '--type', 'merge', '-p', '{"spec":{"list":[3],"a":1}}', '-o', 'json'] },
  { name: 'merge: list replaced, null deletes', args: ['-f', deploy, '--type=merge', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"only"}]}}},"metadata":{"labels":null}}', '-o', 'json'] },
  { name: 'json: add/replace/remove with positions', args: ['-f', deploy, '--type', 'json', '-p', '[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"new"},{"op":"add","path":"/metadata/labels/tier","value":"fe"},{"op":"remove","path":"/spec/template/spec/containers/1"}]', '-o', 'json'] },
  { name: 'json: append with - and escapes', args: ['-f', cm, '--type', 'json', '-p', '[{"op":"add","path":"/data/a~1b","value":"s"},{"op":"add","path":"/metadata/finalizers","value":[]},{"op":"add","path":"/metadata/finalizers/-","value":"f"}]', '-o', 'json'] },
  { name: 'json: failing test op', args: ['-f', deploy, '--type', 'json', '-p', '[{"op":"test","path":"/spec/replicas","value":9}]'] },
  { name: 'json: missing path', args: ['-f', deploy, '--type', 'json', '-p', '[{"op":"replace","path":"/spec/x/y","value":1}]'] },
  { name: 'json: object instead of list', args: ['-f', deploy, '--type', 'json', '-p', '{"op":"add"}'] },
  { name: 'patch file', args: ['-f', deploy, '--patch-file', patchFile, '-o', 'jsonpath={.spec.replicas}'] },
  { name: 'multi-document input', args: ['-f', multi, '-p', '{"data":{"k":"v"}}'] },
  { name: 'no change', args: ['-f', deploy, '-p', '{"spec":{"replicas":1}}'] },
  { name: 'changed, name printer', args: ['-f', deploy, '-p', '{"spec":{"replicas":2}}'] },
  { name: '-o name', args: ['-f', multi, '-p', '{}', '-o', 'name'] },
  { name: 'go-template output', args: ['-f', deploy, '-p', '{"spec":{"replicas":7}}', '-o', 'go-template={{.spec.replicas}}'] },
  { name: 'dry-run=client', args: ['-f', deploy, '-p', '{"spec":{"replicas":3}}', '--dry-run=client'] },
  { name: 'managedFields hidden', args: ['-f', cm, '-p', '{"metadata":{"managedFields":[{"manager":"m","operation":"Update"}]}}', '-o', 'json'] },
  { name: 'managedFields shown', args: ['-f', cm, '-p', '{"metadata":{"managedFields":[{"manager":"m","operation":"Update"}]}}', '-o', 'json', '--show-managed-fields'] },
  { name: 'error: no patch', args: ['-f', deploy] },
  { name: 'error: both patch sources', args: ['-f', deploy, '-p', '{}', '--patch-file', patchFile] },
  { name: 'error: bad type', args: ['-f', deploy, '-p', '{}', '--type', 'foo'] },
  { name: 'error: -k with -f', args: ['-f', deploy, '-k', tmp, '-p', '{}'] },
  { name: 'error: --local with server resources', args: ['deploy', 'web', '-p', '{}'] },
  { name: 'error: --local without -f', args: ['-p', '{}'] },
  { name: 'error: --local with dry-run=server', args: ['-f', deploy, '-p', '{}', '--dry-run=server'] },
  { name: 'error: bad dry-run', args: ['-f', deploy, '-p', '{}', '--dry-run=bogus'] },
  { name: 'error: patch file missing', args: ['-f', deploy, '--patch-file', path.join(tmp, 'nope.json')] },
  { name: 'error: input missing', args: ['-f', path.join(tmp, 'nope.yaml'), '-p', '{}'] },
  { name: 'error: unknown flag', args: ['-f', deploy, '-p', '{}', '--bogus'] },
  { name: 'error: unknown output', args: ['-f', deploy, '-p', '{}', '-o', 'foo'] },
  // Empty, blank and `null` patches: yaml.ToJSON makes them `null`, a no-op for strategic and
  // JSON patch and "Invalid JSON Patch" for merge; go-yaml refuses tabs and control characters.
  ...['strategic', 'merge', 'json'].flatMap((type) =>
    [' ', '\n\n  \n', '\r\n', 'null', '~', '# only a comment', '---', '\t', '\n \t', '# a\n \t# b', '\f'].map((p) => ({
      name: `blank patch ${JSON.stringify(p)} --type ${type}`,
      args: ['-f', cm, '--type', type, '-p', p, ...(p === ' ' ? ['-o', 'json'] : [])],
    })),
  ),
  { name: 'empty patch file', args: ['-f', cm, '--patch-file', emptyPatchFile, '-o', 'yaml'] },
  { name: 'blank patch file with a tab (the error quotes -p, which is empty)', args: ['-f', cm, '--patch-file', blankPatchFile] },
  { name: 'null patch with --dry-run=client', args: ['-f', multi, '-p', 'null', '--dry-run=client'] },
  // A text starting with `{` is JSON as it is: YAML flow syntax fails in the patch functions.
  ...['strategic', 'merge', 'json'].flatMap((type) =>
    ['{data: {b: "2"}}', '{"data":{"b":"2"}} x', '{"a":', '{"a": tru}'].map((p) => ({ name: `non-JSON ${JSON.stringify(p)} --type ${type}`, args: ['-f', cm, '--type', type, '-p', p] })),
  ),
  { name: 'non-JSON patch of a custom kind: the type is checked first', args: ['-f', custom, '-p', '{a: 1}'] },
  // The patched object is decoded as kubectl decodes it.
  { name: 'result: a merge patch that is a list', args: ['-f', cm, '--type', 'merge', '-p', '[1,{"a":null}]'] },
  { name: 'result: kind removed', args: ['-f', cm, '--type', 'json', '-p', '[{"op":"remove","path":"/kind"}]'] },
  { name: 'result: kind not a string', args: ['-f', cm, '--type', 'merge', '-p', '{"kind":3}', '-o', 'json'] },
  { name: 'result: no name prints <unknown>', args: ['-f', cm, '--type', 'merge', '-p', '{"metadata":null}'] },
  { name: 'result: a list prints each item', args: ['-f', cm, '--type', 'merge', '-p', '{"kind":"ConfigMapList","items":[{"kind":"A"},{"metadata":{"name":"n"}}]}'] },
  // Several inputs: kubectl's order, a printer per object (no `---` between YAML objects).
  { name: 'folder', args: ['-f', folder, '-p', '{"data":{"x":"y"}}'] },
  { name: 'folder -R -o yaml', args: ['-f', folder, '-R', '-p', '{"data":{"x":"y"}}', '-o', 'yaml'] },
  { name: 'folder -R -o json', args: ['-R', '-f', folder, '-p', '{"data":{"x":"y"}}', '-o', 'json'] },
  { name: 'folder -o jsonpath', args: ['-f', folder, '-p', '{}', '-o', 'jsonpath={.metadata.name},'] },
  { name: 'files and folders in flag order', args: ['-f', multi, '-f', folder, '-f', cm, '-p', '{}', '-o', 'name'] },
  { name: 'a failing object does not stop the others', args: ['-f', broken, '-p', '{"data":{"x":"y"}}'] },
  { name: 'failures as one aggregate', args: ['-f', onlyUnreadable, '-p', '{}'] },
  { name: 'one unreadable input', args: ['-f', path.join(onlyUnreadable, 'd.yaml'), '-p', '{}'] },
  { name: 'missing paths are reported together before anything is read', args: ['-f', path.join(broken, 'e.yaml'), '-f', path.join(tmp, 'nope1'), '-f', cm, '-f', path.join(tmp, 'nope2'), '-p', '{}'] },
  { name: 'an input without objects', args: ['-f', file('empty.yaml', '\n---\n---\n'), '-p', '{}'] },
  { name: 'unknown -o for several objects', args: ['-f', multi, '-p', '{}', '-o', 'foo'] },
  { name: 'metadata of the wrong types', args: ['-f', badMetadata, '-p', '{}'] },
  // JSONPath as kubectl parses and evaluates it: escaped dots, FieldsV1 keys, typed comparisons.
  ...jsonpaths.map((jp) => ({ name: `jsonpath ${jp}`, args: ['-f', keyed, '-p', '{}', '-o', `jsonpath=${jp}`] })),
  { name: 'jsonpath-as-json with text and range', args: ['-f', keyed, '-p', '{}', '-o', 'jsonpath-as-json={.spec.nums[*]}{range .spec.list[*]}{.name}{end}'] },
  { name: 'jsonpath missing key refused', args: ['-f', keyed, '-p', '{}', '-o', 'jsonpath={.nope}', '--allow-missing-template-keys=false'] },
  { name: 'templates see managedFields without --show-managed-fields', args: ['-f', keyed, '-p', '{}', '-o', 'go-template={{range .metadata.managedFields}}{{.manager}}{{end}}'] },
];

function runKubectl(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(kubectl, ['patch', '--local', ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: tmp, KUBECONFIG: path.join(tmp, 'none') } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const normalise = (s: string) => s.replace(/kubectl/g, 'clientctl');

describe('clientctl patch --local', () => {
  (haveKubectl ? it.each(differential) : it.skip.each(differential))('matches kubectl: $name', async ({ args }) => {
    const ours = await clientctl(['patch', '--local', ...args], { HOME: tmp, KUBECONFIG: path.join(tmp, 'none') });
    const theirs = runKubectl(args);
    expect({ code: ours.code === 0 ? 0 : 1, stdout: ours.stdout, stderr: ours.stderr }).toEqual({
      code: theirs.code === 0 ? 0 : 1,
      stdout: theirs.stdout,
      stderr: normalise(theirs.stderr),
    });
  });

  it('treats a bare --dry-run as client with kubectl\'s deprecation warning', async () => {
    const r = await clientctl(['patch', '--local', '-f', deploy, '-p', '{"spec":{"replicas":3}}', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('deployment.apps/web patched\n');
    expect(r.stderr).toMatch(/^W\d{4} [\d:.]+ +\d+ helpers.go:702\] --dry-run is deprecated and can be replaced with --dry-run=client.\n$/);
  });

  it('reads the input from standard input', async () => {
    const r = await clientctl(['patch', '--local', '-f', '-', '-p', '{"data":{"z":"1"}}', '-o', 'jsonpath={.data.z}'], {}, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s}\n');
    expect(r).toEqual({ code: 0, stdout: '1', stderr: '' });
  });

  it('patches the objects of a kustomization with -k', async () => {
    const dir = mkdtempSync(path.join(tmp, 'k-'));
    writeFileSync(path.join(dir, 'kustomization.yaml'), 'resources: [cm.yaml]\nnamePrefix: dev-\n');
    writeFileSync(path.join(dir, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n');
    const r = await clientctl(['patch', '--local', '-k', dir, '-p', '{"data":{"a":"b"}}', '-o', 'name']);
    expect(r).toEqual({ code: 0, stdout: 'configmap/dev-c\n', stderr: '' });
  });
});

describe('global flags', () => {
  it('prints the version for --version and --version=raw, and overrides it for --version=vX.Y.Z', async () => {
    expect(await clientctl(['--version'])).toEqual({ code: 0, stdout: 'Client Version: v0.1.0\n', stderr: '' });
    expect((await clientctl(['patch', '--version=raw'])).stdout).toMatch(/^version.Info\{Major:"0", Minor:"1", GitVersion:"v0.1.0"/);
    expect((await clientctl(['version', '--client', '--version=v1.2.3'])).stdout).toBe('Client Version: v1.2.3\n');
    expect((await clientctl(['--version=banana'])).stderr).toContain('invalid argument "banana" for "--version" flag');
  });

  it('accepts the toleration and storage-driver flags, and checks their types', async () => {
    const ok = await clientctl([
      'patch', '--local', '-f', cm, '-p', '{}', '-o', 'name', '--default-not-ready-toleration-seconds=10', '--default-unreachable-toleration-seconds', '20',
      '--storage-driver-buffer-duration=2m0s', '--storage-driver-db=x', '--storage-driver-host=h:1', '--storage-driver-password=p', '--storage-driver-secure',
      '--storage-driver-table=t', '--storage-driver-user=u', '--cache-dir', tmp, '--disable-compression', '-n', 'ns',
    ]);
    expect(ok).toEqual({ code: 0, stdout: 'configmap/cfg\n', stderr: '' });
    const bad = await clientctl(['patch', '--local', '-f', cm, '-p', '{}', '--default-not-ready-toleration-seconds=x']);
    expect(bad.stderr).toBe(
      'Error: invalid argument "x" for "--default-not-ready-toleration-seconds" flag: strconv.ParseInt: parsing "x": invalid syntax\nSee \'clientctl patch --help\' for usage.\n',
    );
    const dur = await clientctl(['patch', '--local', '-f', cm, '-p', '{}', '--storage-driver-buffer-duration=soon']);
    expect(dur.stderr).toContain('invalid argument "soon" for "--storage-driver-buffer-duration" flag: time: invalid duration "soon"');
  });

  it('writes a V8 CPU profile and a heap snapshot, and explains the Go-only profiles', async () => {
    const cpu = path.join(tmp, 'cpu.cpuprofile');
    expect((await clientctl(['patch', '--local', '-f', cm, '-p', '{}', '-o', 'name', '--profile=cpu', `--profile-output=${cpu}`])).code).toBe(0);
    expect(JSON.parse((await import('node:fs')).readFileSync(cpu, 'utf8'))).toHaveProperty('nodes');
    const heap = path.join(tmp, 'heap.heapsnapshot');
    expect((await clientctl(['patch', '--local', '-f', cm, '-p', '{}', '-o', 'name', '--profile', 'heap', '--profile-output', heap])).code).toBe(0);
    expect(JSON.parse((await import('node:fs')).readFileSync(heap, 'utf8'))).toHaveProperty('snapshot');
    const go = await clientctl(['patch', '--local', '-f', cm, '-p', '{}', '-o', 'name', '--profile=goroutine']);
    expect(go.code).toBe(0);
    expect(go.stderr).toContain("profile 'goroutine' is a Go runtime profile with no Node.js equivalent");
    expect((await clientctl(['patch', '--local', '-f', cm, '-p', '{}', '--profile=foo'])).stderr).toBe("error: unknown profile 'foo'\n");
  });

  it('prints help for a command and rejects unknown commands and flags', async () => {
    const help = await clientctl(['patch', '-h']);
    expect(help.stdout).toContain('--patch-file=');
    expect(help.stdout).toContain('clientctl patch (-f FILENAME | TYPE NAME) [-p PATCH|--patch-file FILE] [options]');
    expect((await clientctl(['frobnicate'])).stderr).toBe('error: unknown command "frobnicate" for "clientctl"\n');
    expect((await clientctl(['patch', '-Z'])).stderr).toBe("Error: unknown shorthand flag: 'Z' in -Z\nSee 'clientctl patch --help' for usage.\n");
    expect((await clientctl(['patch', '--local', '-f', cm, '-p'])).stderr).toBe("Error: flag needs an argument: 'p' in -p\nSee 'clientctl patch --help' for usage.\n");
  });

  it('prints bash and zsh completion scripts through yargs', async () => {
    const bash = await clientctl(['completion', 'bash']);
    expect(bash.code).toBe(0);
    expect(bash.stdout).toContain('complete -o bashdefault -o default -F _clientctl_yargs_completions clientctl');
    const zsh = await clientctl(['completion', 'zsh']);
    expect(zsh.stdout).toContain('#compdef clientctl');
    expect((await clientctl(['completion', 'fish'])).stderr).toBe('error: Unsupported shell type "fish".\nSee \'clientctl completion -h\' for help and examples\n');
    const words = await clientctl(['--get-yargs-completions', 'clientctl', 'pa']);
    expect(words.stdout.split('\n')).toContain('patch');
  });
});

describe('YAML dialect', () => {
  it('keeps a FieldsV1 `.` key of a YAML file, as kubectl does (go-yaml v2 reads `.` as a string)', async () => {
    const fields = file('fields.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f\n  managedFields:\n  - manager: m\n    operation: Update\n    fieldsType: FieldsV1\n    fieldsV1:\n      f:data:\n        .: {}\n        f:a: {}\ndata: {a: x}\n');
    const out = await clientctl(['patch', '--local', '-f', fields, '-p', '{"data":{"b":"y"}}', '-o', 'json', '--show-managed-fields']);
    expect(out.stderr).toBe('');
    expect(JSON.parse(out.stdout).metadata.managedFields[0].fieldsV1).toEqual({ 'f:data': { '.': {}, 'f:a': {} } });
  });
  const dialect = file('dialect.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: t}\ndata: {t: 1:20, o: 0777, y: yes, d: 2024-01-02, n: null, f: 1.5e3}\n');
  (haveKubectl ? it : it.skip)('reads YAML 1.1 booleans and octals but keeps base-60 and timestamps as strings, as kubectl does', async () => {
    const ours = await clientctl(['patch', '--local', '-f', dialect, '-p', 'data: {on: off}', '-o', 'json']);
    expect(ours.stdout).toBe(runKubectl(['-f', dialect, '-p', 'data: {on: off}', '-o', 'json']).stdout);
  });
});
