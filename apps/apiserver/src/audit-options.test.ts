import { parseFlags } from '../test/auth-fixtures.js';
import { completeServeOptions } from './options.js';

async function audit(args: string[]) {
  const { options, errors } = completeServeOptions(await parseFlags(args));
  return { audit: options?.audit, errors };
}

// Defaults and checks of k8s.io/apiserver pkg/server/options/audit.go (NewAuditOptions, Validate).
describe('--audit-* flags', () => {
  it('turn nothing on by default', async () => {
    expect(await audit([])).toEqual({ audit: {}, errors: [] });
  });

  it('take Kubernetes’ defaults: log blocking, webhook batch 10000/400/30s/10 qps/15, backoff 10s', async () => {
    const { audit: a } = await audit(['--audit-policy-file=p.yaml', '--audit-log-path=/var/log/audit.log', '--audit-webhook-config-file=w.conf']);
    expect(a).toEqual({
      policyFile: 'p.yaml',
      log: {
        path: '/var/log/audit.log',
        format: 'json',
        maxAgeDays: 366,
        maxBackups: 100,
        maxSizeMB: 100,
        mode: 'blocking',
        batch: { bufferSize: 10000, maxBatchSize: 1, maxBatchWaitMs: 0, throttleEnable: false, throttleQPS: 0, throttleBurst: 0 },
      },
      webhook: {
        configFile: 'w.conf',
        initialBackoffMs: 10_000,
        mode: 'batch',
        batch: { bufferSize: 10000, maxBatchSize: 400, maxBatchWaitMs: 30_000, throttleEnable: true, throttleQPS: 10, throttleBurst: 15 },
      },
    });
  });

  it('reads modes, formats, batch and truncate flags', async () => {
    const { audit: a, errors } = await audit([
      '--audit-log-path=-',
      '--audit-log-format=legacy',
      '--audit-log-mode=batch',
      '--audit-log-batch-max-size=50',
      '--audit-log-batch-max-wait=2s',
      '--audit-log-truncate-enabled',
      '--audit-log-truncate-max-event-size=1000',
    ]);
    expect(errors).toEqual([]);
    expect(a!.log).toMatchObject({ path: '-', format: 'legacy', mode: 'batch', batch: { maxBatchSize: 50, maxBatchWaitMs: 2000 }, truncate: { maxEventSize: 1000, maxBatchSize: 10485760 } });
  });

  it('refuses unknown modes and formats and bad numbers, with every problem at once', async () => {
    const { errors } = await audit(['--audit-log-path=a.log', '--audit-log-mode=sometimes', '--audit-log-format=xml', '--audit-log-maxsize=ten', '--audit-webhook-config-file=w', '--audit-webhook-initial-backoff=soon']);
    expect(errors).toEqual([
      'invalid audit log format xml, allowed formats are "legacy,json"',
      'invalid argument "ten" for "--audit-log-maxsize" flag: strconv.ParseInt: parsing "ten": invalid syntax',
      'invalid audit log mode sometimes, allowed modes are "batch,blocking,blocking-strict"',
      expect.stringMatching(/^invalid argument "soon" for "--audit-webhook-initial-backoff" flag: /),
    ]);
  });

  it('compress rotated log files with --audit-log-compress (lumberjack’s Compress)', async () => {
    const { audit: a, errors } = await audit(['--audit-log-path=a.log', '--audit-log-compress']);
    expect(errors).toEqual([]);
    expect(a!.log).toMatchObject({ path: 'a.log', compress: true });
  });

  // validateGroupVersionString: only audit.k8s.io/v1 is known since Kubernetes 1.24.
  it('take audit.k8s.io/v1 for --audit-log-version and --audit-webhook-version and refuse any other', async () => {
    expect((await audit(['--audit-log-path=a.log', '--audit-log-version=audit.k8s.io/v1', '--audit-webhook-config-file=w', '--audit-webhook-version=audit.k8s.io/v1'])).errors).toEqual([]);
    const { errors } = await audit(['--audit-log-path=a.log', '--audit-log-version=audit.k8s.io/v1beta1', '--audit-webhook-config-file=w', '--audit-webhook-version=audit.k8s.io/v1/x']);
    expect(errors).toEqual(['invalid group version, allowed versions are ["audit.k8s.io/v1"]', 'unexpected GroupVersion string: audit.k8s.io/v1/x']);
    expect((await audit(['--audit-log-path=a.log', '--audit-log-version=audit.plat.io/v1'])).errors).toEqual(['invalid group version, allowed versions are ["audit.k8s.io/v1"]']);
    // Not checked while its backend is off, as in Kubernetes.
    expect((await audit(['--audit-webhook-version=v1'])).errors).toEqual([]);
  });
});
