import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPrinter } from './printer.js';
import { decodeObjects } from './object-stream.js';
import { GoTemplate } from './go-template.js';
import { JsonPath } from './jsonpath.js';
import { readFileSync } from 'node:fs';

const here = path.dirname(fileURLToPath(import.meta.url));
const deployFile = path.join(here, '..', 'test', 'manifests', 'deploy.yaml');
const deploy = decodeObjects(readFileSync(deployFile, 'utf8'), deployFile)[0];
const kubectl = '/usr/bin/kubectl';
const haveKubectl = existsSync(kubectl);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'plat-printer-'));

/** What kubectl prints for `-o <output>` of the same object (through `patch --local` with an empty patch). */
function kubectlPrint(args: string[]): { stdout: string; stderr: string; status: number | null } {
  const r = spawnSync(kubectl, ['patch', '--local', '-f', deployFile, '-p', '{}', ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: tmp, KUBECONFIG: path.join(tmp, 'none') },
  });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

const cases: { name: string; output: string; template?: string; allowMissing?: boolean }[] = [
  { name: 'json', output: 'json' },
  { name: 'yaml', output: 'yaml' },
  { name: 'name', output: 'name' },
  { name: 'jsonpath field', output: 'jsonpath={.metadata.name}' },
  { name: 'jsonpath map and list', output: 'jsonpath={.metadata.labels} {.spec.template.spec.containers}' },
  { name: 'jsonpath wildcard', output: 'jsonpath={.spec.template.spec.containers[*].image}' },
  { name: 'jsonpath index and negative index', output: 'jsonpath={.spec.template.spec.containers[0].name}/{.spec.template.spec.containers[-1].name}' },
  { name: 'jsonpath slice', output: 'jsonpath={.spec.template.spec.containers[0:1].name}' },
  { name: 'jsonpath recursive descent', output: 'jsonpath={..image}' },
  { name: 'jsonpath filter', output: 'jsonpath={.spec.template.spec.containers[?(@.name=="sidecar")].image}' },
  { name: 'jsonpath range and literals', output: 'jsonpath={range .spec.template.spec.containers[*]}{.name}{"\\t"}{.image}{"\\n"}{end}' },
  { name: 'jsonpath quoted key', output: "jsonpath={.metadata.labels['app']}" },
  { name: 'jsonpath missing key allowed', output: 'jsonpath={.nothing.here}' },
  { name: 'jsonpath-as-json', output: 'jsonpath-as-json={.spec.template.spec.containers[*].name}' },
  { name: 'jsonpath text only', output: 'jsonpath=.metadata.name' },
  { name: 'go-template fields', output: 'go-template={{.kind}}/{{.metadata.name}} {{.spec.replicas}}' },
  { name: 'go-template maps and lists', output: 'go-template={{.metadata.labels}} {{.spec.template.spec.containers}}' },
  { name: 'go-template range with variables', output: 'go-template={{range $i, $c := .spec.template.spec.containers}}{{$i}}={{$c.name}};{{end}}' },
  { name: 'go-template if/else', output: 'go-template={{if gt .spec.replicas 0}}scaled{{else}}idle{{end}} {{if eq .kind "Pod" "Deployment"}}match{{end}}' },
  { name: 'go-template with and index', output: 'go-template={{with .metadata.labels}}{{index . "app"}}{{end}} {{index .spec.template.spec.containers 1 | printf "%v"}}' },
  { name: 'go-template printf, len, print', output: 'go-template={{printf "%s has %d containers (%q)" .metadata.name (len .spec.template.spec.containers) .kind}} {{print 1 2 "a" "b" 3}}' },
  { name: 'go-template missing key', output: 'go-template={{.nothing}} {{.metadata.nothing}}' },
  { name: 'go-template and/or/not', output: 'go-template={{and .kind .nothing}}|{{or .nothing .kind}}|{{not .kind}}' },
  { name: 'go-template trim markers and comments', output: 'go-template={{- /* c */ -}}  {{ .kind -}}   !' },
  { name: 'template alias', output: 'template={{.apiVersion}}' },
  { name: '--template alone means go-template', output: '', template: '{{.metadata.name}}' },
];

describe('printers', () => {
  it.each(cases)('$name', ({ output, template }) => {
    const printer = createPrinter({ output, template, allowMissingTemplateKeys: true });
    const ours = printer.print(deploy, 'patched (no change)');
    expect(typeof ours).toBe('string');
    if (!haveKubectl) return;
    const theirs = kubectlPrint([...(output ? ['-o', output] : []), ...(template ? ['--template', template] : [])]);
    expect(theirs.status).toBe(0);
    expect(ours).toBe(theirs.stdout);
  });

  (haveKubectl ? it : it.skip)('quotes YAML strings as go-yaml v2 does (types of YAML 1.1, syntax, control characters)', () => {
    const values = ['yes', 'y', 'on', '2026-01-01', '1:20', '0777', '1e3', 'null', '~', '', '2026-11-22T06:45:54Z', 'Y', '0x1F', '.5', '- x', 'a: b', '#x', ' lead', 'trail ', 'multi\nline', 'tab\there', '1_000', '+1', 'True', 'NO', '0b101', 'plain text', 'ends\n'];
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'q' }, data: Object.fromEntries(values.map((v, i) => [`k${i}`, v])) };
    const file = path.join(tmp, 'quoting.json');
    writeFileSync(file, JSON.stringify({ ...obj, data: { ...obj.data, n: 'keys', y: 'too' } }));
    const r = spawnSync(kubectl, ['patch', '--local', '-f', file, '-p', '{}', '-o', 'yaml'], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: tmp, KUBECONFIG: path.join(tmp, 'none') } });
    expect(createPrinter({ output: 'yaml' }).print({ ...obj, data: { ...obj.data, n: 'keys', y: 'too' } })).toBe(r.stdout);
  });

  it('prints the operation with the default printer', () => {
    expect(createPrinter({}).print(deploy, 'patched')).toBe('deployment.apps/web patched\n');
    expect(createPrinter({ output: 'name' }).print({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, 'patched')).toBe('configmap/x\n');
  });

  it('strips managedFields unless asked to keep them', () => {
    const obj = { ...deploy, metadata: { ...deploy.metadata, managedFields: [{ manager: 'm' }] } };
    expect(createPrinter({ output: 'json' }).print(obj)).not.toContain('managedFields');
    expect(createPrinter({ output: 'json', showManagedFields: true }).print(obj)).toContain('"managedFields"');
    expect(createPrinter({ output: 'yaml' }).print({ kind: 'List', items: [obj] })).not.toContain('managedFields');
  });

  it('escapes like Go encoding/json and separates YAML documents', () => {
    expect(createPrinter({ output: 'json' }).print({ a: '<&>' })).toBe('{\n    "a": "\\u003c\\u0026\\u003e"\n}\n');
    const y = createPrinter({ output: 'yaml' });
    expect(y.print({ b: 1, a: 'x\ny\n' }) + y.print({ c: '3' })).toBe('a: |\n  x\n  y\nb: 1\n---\nc: "3"\n');
  });

  it('fails as kubectl does for unknown formats, missing templates and missing keys when not allowed', () => {
    expect(() => createPrinter({ output: 'foo' })).toThrow(
      'unable to match a printer suitable for the output format "foo", allowed formats are: go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,yaml',
    );
    expect(() => createPrinter({ output: 'jsonpath' })).toThrow('template format specified but no template given');
    expect(() => createPrinter({ output: 'jsonpath={.a' })).toThrow('error parsing jsonpath {.a, unclosed action');
    expect(() => createPrinter({ output: 'jsonpath={.a,.b}' })).toThrow("error parsing jsonpath {.a,.b}, unrecognized character in action: U+002C ','");
    expect(() => createPrinter({ output: 'go-template={{.kind' })).toThrow('error parsing template {{.kind, template: output:1: unclosed action');
    expect(() => createPrinter({ output: 'go-template={{.a}}', allowMissingTemplateKeys: false }).print(deploy)).toThrow(
      'error executing template "{{.a}}": template: output:1:2: executing "output" at <.a>: map has no entry for key "a"',
    );
    expect(() => createPrinter({ output: 'go-template={{if gt .spec.replicas 0.5}}x{{end}}' }).print(deploy)).toThrow(
      'template: output:1:5: executing "output" at <gt .spec.replicas 0.5>: error calling gt: incompatible types for comparison',
    );
    expect(() => createPrinter({ output: 'jsonpath={.a}', allowMissingTemplateKeys: false }).print(deploy)).toThrow(
      /^error executing jsonpath "{.a}": Error executing template: a is not found/,
    );
  });

  it('reads template files for the -file formats', () => {
    const file = path.join(tmp, 't.tmpl');
    writeFileSync(file, '{{.metadata.name}}');
    const jp = path.join(tmp, 't.jsonpath');
    writeFileSync(jp, '{.kind}');
    expect(createPrinter({ output: `go-template-file=${file}` }).print(deploy)).toBe('web');
    expect(createPrinter({ output: 'templatefile', template: file }).print(deploy)).toBe('web');
    expect(createPrinter({ output: `jsonpath-file=${jp}` }).print(deploy)).toBe('Deployment');
    expect(() => createPrinter({ output: `go-template-file=${path.join(tmp, 'absent')}` })).toThrow(/^error reading --template .*absent, open .*absent: no such file or directory/);
  });
});

describe('JsonPath and GoTemplate details', () => {
  const list = { items: [{ n: 'a', v: 1 }, { n: 'b', v: 2 }, { n: 'c', v: 3 }] };
  it('evaluates slices with steps, unions and numeric filters', () => {
    expect(new JsonPath('{.items[0:3:2].n}').execute(list)).toBe('a c');
    expect(new JsonPath('{.items[0,2].n}').execute(list)).toBe('a c');
    expect(new JsonPath('{.items[?(@.v>1)].n}').execute(list)).toBe('b c');
    expect(new JsonPath("{.items[?(@.n!='a')].v}").execute(list)).toBe('2 3');
    expect(new JsonPath("{.items[*]['n','v']}").execute({ items: [{ n: 'x', v: 9 }] })).toBe('x 9');
    // Only single quotes make a key, and a key is a path: `['a.b']` reads `.a.b`; escape dots instead.
    expect(() => new JsonPath('{.items[*]["n","v"]}')).toThrow('error parsing jsonpath {.items[*]["n","v"]}, invalid array index "n"');
    expect(new JsonPath("{.m['a.b']} {.m.a\\.b} {.m.a.b}").execute({ m: { 'a.b': 1, a: { b: 2 } } })).toBe('2 1 2');
  });
  it('supports variables, assignment, else-if and range over maps', () => {
    const t = new GoTemplate('{{$x := 1}}{{range $k, $v := .m}}{{$k}}:{{$v}} {{end}}{{$x = 2}}{{$x}}{{if .no}}a{{else if .m}}b{{else}}c{{end}}{{range .none}}x{{else}}empty{{end}}');
    expect(t.execute({ m: { b: 2, a: 1 } })).toBe('a:1 b:2 2bempty');
    expect(new GoTemplate('{{base64decode .d}}').execute({ d: Buffer.from('hi').toString('base64') })).toBe('hi');
    expect(new GoTemplate('{{printf "%05.1f|%-4s|%x|%t" 3.14159 "ab" 255 true}}').execute({})).toBe('003.1|ab  |ff|true');
  });
});
