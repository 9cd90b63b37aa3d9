import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Agent, request } from 'undici';
import { parse } from 'yaml';
import { adminCredentials, bundlePath, startApiServer, tempDir } from './apiserver-process.js';

const pkg = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../package.json'), 'utf8')) as { version: string };

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bundlePath(), ...args], { timeout: 30000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

describe('apiserver command line', () => {
  it('prints its version', async () => {
    const r = await run(['--version']);
    expect(r).toEqual({ code: 0, stdout: `apiserver v${pkg.version}\n`, stderr: '' });
  });

  it('runs the validate subcommand on configuration files', async () => {
    const dir = tempDir('plat-cli-');
    try {
      const good = path.join(dir, 'tracing.yaml');
      fs.writeFileSync(good, 'apiVersion: apiserver.plat.io/v1beta1\nkind: TracingConfiguration\nsamplingRatePerMillion: 100\n');
      const bad = path.join(dir, 'bad.yaml');
      fs.writeFileSync(bad, 'apiVersion: apiserver.plat.io/v1beta1\nkind: TracingConfiguration\nsamplingRatePerMillion: -1\n');
      expect((await run(['validate', `--tracing-config-file=${good}`])).code).toBe(0);
      const r = await run(['validate', `--tracing-config-file=${bad}`]);
      expect(r.code).toBe(1);
      expect(r.stdout + r.stderr).toContain('samplingRatePerMillion');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('tells a newcomer the URL and the next commands, with the default data dir relative to the working directory', async () => {
    const cwd = tempDir('plat-cli-cwd-');
    const server = await startApiServer({ dataDir: '.plat', cwd, args: ['--storage-backend=memory'] });
    try {
      expect(server.stdout()).toBe(
        `plat apiserver v${pkg.version} is serving at ${server.url}\n` +
          'Development PKI in .plat/pki (created); admin credentials (group system:masters) in .plat/admin.conf\n' +
          '\n' +
          'Next, in another terminal, try:\n' +
          '  npx clientctl --kubeconfig .plat/admin.conf get clustertrustbundles\n' +
          '  kubectl --kubeconfig .plat/admin.conf get clustertrustbundles\n' +
          '\n' +
          'Stop with Ctrl-C (SIGINT) or SIGTERM: the server drains in-flight requests and closes watches.\n',
      );
      expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(fs.statSync(path.join(cwd, '.plat', 'admin.conf')).mode & 0o777).toBe(0o600);
      expect(parse(fs.readFileSync(path.join(cwd, '.plat', 'admin.conf'), 'utf8')).clusters[0].cluster.server).toBe(server.url);
    } finally {
      expect(await server.stop()).toBe(0);
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('lists the Kubernetes-named flags in --help', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    for (const flag of [
      '--bind-address',
      '--secure-port',
      '--tls-cert-file',
      '--tls-private-key-file',
      '--client-ca-file',
      '--token-auth-file',
      '--storage-backend',
      '--etcd-servers',
      '--etcd-cafile',
      '--etcd-certfile',
      '--etcd-keyfile',
      '--etcd-prefix',
      '--data-dir',
      '--authorization-mode',
      '--request-timeout',
      '--max-requests-inflight',
      '--max-mutating-requests-inflight',
      '--logging-format',
    ]) {
      expect(r.stdout).toContain(flag);
    }
  });

  it('rejects unknown flags and bad values before starting, with every problem', async () => {
    const unknown = await run(['--no-such-flag=1']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Error: unknown flag: --no-such-flag');
    const bad = await run(['--secure-port=abc', '--authorization-mode=ABAC']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(
      'Error: invalid argument "abc" for "--secure-port" flag: strconv.ParseInt: parsing "abc": invalid syntax\n' +
        'Error: authorization-mode "ABAC" is not a valid mode\n' +
        'Run "apiserver --help" for the flags.\n',
    );
  });

  it('stops with a clear error when the token file is malformed', async () => {
    const dir = tempDir('plat-cli-');
    try {
      const tokens = path.join(dir, 'tokens.csv');
      fs.writeFileSync(tokens, 'only,two\n');
      const r = await run(['--secure-port=0', `--data-dir=${dir}`, '--storage-backend=memory', `--token-auth-file=${tokens}`]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`Error: --token-auth-file: token file '${tokens}' must have at least 3 columns (token, user name, user uid), found 2`);
      const missing = await run(['--secure-port=0', `--data-dir=${dir}`, '--storage-backend=memory', `--client-ca-file=${path.join(dir, 'nope.crt')}`]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('Error: --client-ca-file: ENOENT: no such file or directory');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails clearly when the port is taken', async () => {
    const dir = tempDir('plat-cli-');
    const first = await startApiServer({ dataDir: dir, args: ['--storage-backend=memory'] });
    try {
      const r = await run([`--secure-port=${first.port}`, `--data-dir=${dir}`, '--storage-backend=memory']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`Error: failed to listen on 127\\.0\\.0\\.1:${first.port}: .*EADDRINUSE`));
    } finally {
      expect(await first.stop()).toBe(0);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('logs one JSON line per request at -v=2 with --logging-format=json', async () => {
    const dir = tempDir('plat-cli-');
    const server = await startApiServer({ dataDir: dir, args: ['--storage-backend=memory', '-v=2', '--logging-format=json'] });
    try {
      const dispatcher = new Agent({ connect: adminCredentials(server.kubeconfig) });
      const res = await request(`${server.url}/healthz`, { dispatcher, headers: { 'user-agent': 'cli-test' } });
      expect(res.statusCode).toBe(200);
      expect(await res.body.text()).toBe('ok');
      await dispatcher.close();
      // The child logs the request after answering it: poll its stderr rather than sleep a fixed time.
      for (const end = Date.now() + 15_000; !/"URI":"\/healthz".*\n/.test(server.stderr()) && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
      const lines = server.stderr().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.some((l) => l.msg === 'Serving securely')).toBe(true);
      expect(lines).toContainEqual(
        expect.objectContaining({ msg: 'HTTP', v: 2, verb: 'GET', URI: '/healthz', resp: 200, user: 'plat-admin', userAgent: 'cli-test' }),
      );
    } finally {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('shuts down gracefully on SIGTERM: open watches end cleanly, exit code 0, a repeated signal within a second is the same request', async () => {
    const dir = tempDir('plat-cli-');
    const server = await startApiServer({ dataDir: dir, args: ['--storage-backend=memory'] });
    try {
      const dispatcher = new Agent({
        connect: adminCredentials(server.kubeconfig),
        bodyTimeout: 0,
      });
      const watch = await request(`${server.url}/apis/certificates.plat.io/v1alpha1/clustertrustbundles?watch=true`, { dispatcher });
      expect(watch.statusCode).toBe(200);
      const ended = watch.body.text();
      // Ctrl-C in a terminal reaches the server twice (process group + npm start's forwarding).
      server.child.kill('SIGINT');
      server.child.kill('SIGINT');
      expect(await server.stop('SIGTERM')).toBe(0);
      await expect(ended).resolves.toBeDefined();
      expect(server.stderr()).toContain('Received termination signal, shutting down gracefully');
      expect(server.stderr()).toContain('Shut down cleanly');
      expect(server.stderr()).not.toContain('exiting without draining');
      await dispatcher.close();
    } finally {
      await server.stop('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
