import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clientctl } from '../test/harness.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'clientctl-config-'));
const kubectl = '/usr/bin/kubectl';
const haveKubectl = existsSync(kubectl);

mkdirSync(path.join(tmp, 'a'));
const one = path.join(tmp, 'a', 'one');
writeFileSync(
  one,
  `apiVersion: v1
kind: Config
clusters:
- name: c1
  cluster: {server: "https://127.0.0.1:6443", certificate-authority: ca.pem}
users:
- name: u1
  user: {token: abc, client-key-data: ${Buffer.from('KEY').toString('base64')}}
contexts:
- name: ctx1
  context: {cluster: c1, user: u1, namespace: ns1}
current-context: ctx1
`,
);
writeFileSync(path.join(tmp, 'a', 'ca.pem'), 'CA');
const two = path.join(tmp, 'two');
writeFileSync(
  two,
  `apiVersion: v1
kind: Config
clusters:
- name: c1
  cluster: {server: "https://shadowed:1"}
- name: c2
  cluster: {server: "https://127.0.0.1:7443", insecure-skip-tls-verify: true}
users:
- name: u2
  user: {username: bob, password: secret}
contexts:
- name: ctx2
  context: {cluster: c2, user: u2}
- name: a-first
  context: {cluster: c1, user: u2}
current-context: ctx2
`,
);
const env = { HOME: tmp, KUBECONFIG: `${one}:${two}` };

function runKubectl(args: string[], e: Record<string, string> = env) {
  const r = spawnSync(kubectl, args, { encoding: 'utf8', env: { PATH: process.env.PATH, ...e } });
  return { code: r.status === 0 ? 0 : 1, stdout: r.stdout, stderr: r.stderr.replace(/kubectl/g, 'clientctl') };
}

const cases: { name: string; args: string[] }[] = [
  { name: 'config view (merged, redacted)', args: ['config', 'view'] },
  { name: 'config view --raw', args: ['config', 'view', '--raw'] },
  { name: 'config view --minify -o json', args: ['config', 'view', '--minify', '-o', 'json'] },
  { name: 'config view --minify --context', args: ['config', 'view', '--minify', '--context', 'ctx2'] },
  { name: 'config view -o jsonpath', args: ['config', 'view', '-o', 'jsonpath={.contexts[*].name}'] },
  { name: 'config get-contexts', args: ['config', 'get-contexts'] },
  { name: 'config get-contexts -o name', args: ['config', 'get-contexts', '-o', 'name'] },
  { name: 'config get-contexts NAME', args: ['config', 'get-contexts', 'ctx2'] },
  { name: 'config get-contexts missing', args: ['config', 'get-contexts', 'nope'] },
  { name: 'config use-context missing', args: ['config', 'use-context', 'nope'] },
  { name: 'config view of a missing --kubeconfig', args: ['config', 'view', '--kubeconfig', path.join(tmp, 'absent')] },
  { name: 'get with a missing --kubeconfig', args: ['get', 'ctb', '--kubeconfig', path.join(tmp, 'absent')] },
  { name: 'patch --local with a missing --kubeconfig', args: ['patch', '--local', '-f', one, '-p', '{}', '--kubeconfig', path.join(tmp, 'absent')] },
];

describe('clientctl config', () => {
  (haveKubectl ? it.each(cases) : it.skip.each(cases))('matches kubectl: $name', async ({ args }) => {
    const ours = await clientctl(args, env);
    expect({ ...ours, code: ours.code === 0 ? 0 : 1 }).toEqual(runKubectl(args));
  });

  it('switches the current context in the first file', async () => {
    const copy = path.join(tmp, 'copy');
    writeFileSync(copy, readFileSync(one));
    const e = { HOME: tmp, KUBECONFIG: `${copy}:${two}` };
    expect(await clientctl(['config', 'use-context', 'ctx2'], e)).toEqual({ code: 0, stdout: 'Switched to context "ctx2".\n', stderr: '' });
    expect((await clientctl(['config', 'view', '-o', 'jsonpath={.current-context}'], e)).stdout).toBe('ctx2');
    expect(readFileSync(two, 'utf8')).toContain('current-context: ctx2');
  });

  it('shows an empty configuration when no file exists, and requires an explicit --kubeconfig to exist', async () => {
    const empty = { HOME: path.join(tmp, 'nohome') };
    const view = await clientctl(['config', 'view'], empty);
    expect(view.stdout).toBe('apiVersion: v1\nclusters: null\ncontexts: null\ncurrent-context: ""\nkind: Config\npreferences: {}\nusers: null\n');
    const missing = await clientctl(['get', 'ctb', '--kubeconfig', path.join(tmp, 'absent')], empty);
    expect(missing).toEqual({ code: 1, stdout: '', stderr: `error: stat ${path.join(tmp, 'absent')}: no such file or directory\n` });
  });
});
