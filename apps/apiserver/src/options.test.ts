import yargs from 'yargs';
import { completeServeOptions, declareServeFlags, type RawFlags } from './options.js';

async function flags(...args: string[]): Promise<RawFlags> {
  return (await declareServeFlags(yargs(args).parserConfiguration({ 'camel-case-expansion': false })).parseAsync()) as unknown as RawFlags;
}

describe('serve flags', () => {
  it('has the documented defaults', async () => {
    const { options, errors } = completeServeOptions(await flags());
    expect(errors).toEqual([]);
    expect(options).toMatchObject({
      bindAddress: '127.0.0.1',
      securePort: 6443,
      storageBackend: 'sqlite',
      dataDir: '.plat',
      etcdPrefix: '/registry',
      authorizationModes: ['RBAC'],
      requestTimeoutMs: 60_000,
      minRequestTimeoutSeconds: 1800,
      http2MaxStreamsPerConnection: 0,
      maxRequestsInflight: 400,
      maxMutatingRequestsInflight: 200,
      verbosity: 0,
      loggingFormat: 'text',
      watchCache: true,
      watchCacheWindowEvents: 10_000,
      watchCacheWindowBytes: 64 * 1024 * 1024,
    });
  });

  it('reads Kubernetes-style values: -v=2, --v 3, comma lists, durations', async () => {
    expect(completeServeOptions(await flags('-v=2')).options?.verbosity).toBe(2);
    expect(completeServeOptions(await flags('--v', '3')).options?.verbosity).toBe(3);
    const { options } = completeServeOptions(
      await flags(
        '--storage-backend=etcd3',
        '--etcd-servers=https://127.0.0.1:2379,https://127.0.0.2:2379',
        '--authorization-mode=AlwaysAllow',
        '--request-timeout=1m30s',
        '--secure-port=0',
        '--logging-format=json',
      ),
    );
    expect(options).toMatchObject({
      storageBackend: 'etcd3',
      etcdServers: ['https://127.0.0.1:2379', 'https://127.0.0.2:2379'],
      authorizationModes: ['AlwaysAllow'],
      requestTimeoutMs: 90_000,
      securePort: 0,
      loggingFormat: 'json',
    });
  });

  it('reads the watch cache window bounds in bytes or with a binary suffix', async () => {
    expect(completeServeOptions(await flags('--watch-cache-window-bytes=128Mi', '--watch-cache-window-events=500')).options).toMatchObject({
      watchCacheWindowBytes: 128 * 1024 * 1024,
      watchCacheWindowEvents: 500,
    });
    expect(completeServeOptions(await flags('--watch-cache-window-bytes=1048576')).options?.watchCacheWindowBytes).toBe(1024 * 1024);
    const { errors } = completeServeOptions(await flags('--watch-cache-window-bytes=64MB', '--watch-cache-window-events=0'));
    expect(errors).toEqual([
      '--watch-cache-window-events 0 must be between 1 and 9007199254740991, inclusive.',
      'invalid argument "64MB" for "--watch-cache-window-bytes" flag: expected a positive number of bytes, optionally with a Ki, Mi or Gi suffix',
    ]);
  });

  it('reports every bad value at once, in pflag and Kubernetes wording', async () => {
    const { options, errors } = completeServeOptions(
      await flags(
        '--secure-port=abc',
        '--bind-address=localhost',
        '--storage-backend=postgres',
        '--authorization-mode=ABAC',
        '--request-timeout=10',
        '--logging-format=xml',
        '--tls-cert-file=a.crt',
      ),
    );
    expect(options).toBeUndefined();
    expect(errors).toEqual([
      '--bind-address "localhost" is not a valid IP address',
      'invalid argument "abc" for "--secure-port" flag: strconv.ParseInt: parsing "abc": invalid syntax',
      '--tls-cert-file and --tls-private-key-file must be given together',
      `--storage-backend invalid, allowed values: 'sqlite', 'memory', 'etcd3'; got "postgres"`,
      'authorization-mode "ABAC" is not a valid mode',
      'invalid argument "10" for "--request-timeout" flag: time: missing unit in duration "10"',
      'format: Invalid value: "xml": Unsupported log format',
    ]);
  });

  it('requires etcd servers for the etcd3 backend and a port in range', async () => {
    expect(completeServeOptions(await flags('--storage-backend=etcd3')).errors).toEqual(['--etcd-servers must be specified']);
    expect(completeServeOptions(await flags('--secure-port=70000')).errors).toEqual(['--secure-port 70000 must be between 0 and 65535, inclusive.']);
  });
});
