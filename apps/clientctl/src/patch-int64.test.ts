// Integers within int64 stay exact (past 2^53 too) and integers beyond it turn float64, in every
// input and output form of `patch --local`, as kubectl does (its output is the oracle).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clientctl } from '../test/harness.js';

const kubectl = '/usr/bin/kubectl';
const haveKubectl = existsSync(kubectl);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'clientctl-int64-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const p = path.join(tmp, name);
  writeFileSync(p, text);
  return p;
};

const json = file(
  'obj.json',
  '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","generation":9007199254740993},"data":{"a":"b"},"seed":9007199254740993,"big":1208925819614629174706176,"neg":-9223372036854775808,"f":1.5,"list":[9223372036854775807,-9007199254740993]}',
);
const yaml = file('obj.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\nseed: 9007199254740993\nbig: 1208925819614629174706176\nlist: [9223372036854775807, 1]\n');

const cases = [
  { name: 'strategic, JSON in, JSON out', args: ['-f', json, '-p', '{"metadata":{"labels":{"x":"y"}},"n":9007199254740995}', '-o', 'json'] },
  { name: 'merge, YAML in, YAML out', args: ['-f', yaml, '--type', 'merge', '-p', '{"metadata":{"labels":{"x":"y"}},"n":-9007199254740995}', '-o', 'yaml'] },
  { name: 'json patch adds int64 max', args: ['-f', json, '--type', 'json', '-p', '[{"op":"add","path":"/m","value":9223372036854775807}]', '-o', 'json'] },
  { name: 'json patch test on an exact value', args: ['-f', json, '--type', 'json', '-p', '[{"op":"test","path":"/seed","value":9007199254740993},{"op":"replace","path":"/seed","value":9007199254740994}]', '-o', 'json'] },
  { name: 'YAML patch with a big integer', args: ['-f', json, '-p', 'seed: 9223372036854775806', '-o', 'yaml'] },
  { name: 'jsonpath of an exact value', args: ['-f', json, '-p', '{}', '-o', 'jsonpath={.seed}'] },
];

describe('clientctl patch --local with integers past 2^53', () => {
  (haveKubectl ? it.each(cases) : it.skip.each(cases))('matches kubectl: $name', async ({ args }) => {
    const ours = await clientctl(['patch', '--local', ...args], { HOME: tmp, KUBECONFIG: path.join(tmp, 'none') });
    const r = spawnSync(kubectl, ['patch', '--local', ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: tmp, KUBECONFIG: path.join(tmp, 'none') } });
    expect({ code: ours.code, stdout: ours.stdout, stderr: ours.stderr }).toEqual({ code: r.status, stdout: r.stdout, stderr: r.stderr });
  });

  it('keeps 9007199254740993 exact even where kubectl is missing', async () => {
    const ours = await clientctl(['patch', '--local', '-f', json, '-p', '{}', '-o', 'json'], { HOME: tmp, KUBECONFIG: path.join(tmp, 'none') });
    expect(ours.stdout).toContain('"seed": 9007199254740993');
    expect(ours.stdout).toContain('"big": 1.2089258196146292e+24');
  });
});
