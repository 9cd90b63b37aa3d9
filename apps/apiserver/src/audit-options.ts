/**
 * The audit flags with kube-apiserver's names, defaults and help (k8s.io/apiserver
 * `pkg/server/options/audit.go`), parsed into @plat/control-plane's AuditSetupOptions (the policy
 * file is loaded at start, like the other configuration files).
 */
import type { Argv } from 'yargs';
import { auditModes, defaultLogBatchConfig, defaultTruncateConfig, defaultWebhookBatchConfig, type AuditMode, type BatchConfig, type TruncateConfig } from '@plat/audit';
import { goQuote, nanosecondsToMilliseconds, parseGoDuration } from '@plat/api-model';
import type { AuditSetupOptions } from '@plat/control-plane';

export interface AuditFlags extends Omit<AuditSetupOptions, 'policy'> {
  /** --audit-policy-file */
  policyFile?: string;
}

type Plugin = 'log' | 'webhook';

/** The one version events are written in: Kubernetes 1.24 removed audit.k8s.io/v1alpha1 and v1beta1. */
const auditEventVersion = 'audit.k8s.io/v1';

/**
 * `--audit-{log,webhook}-version` as validateGroupVersionString checks it (schema.ParseGroupVersion,
 * then the known versions); only checked when the backend is on, as there.
 */
function checkGroupVersion(raw: Record<string, unknown>, plugin: Plugin, errors: string[]): void {
  const value = String(lastValue(raw, `audit-${plugin}-version`));
  if (value.split('/').length > 2) errors.push(`unexpected GroupVersion string: ${value}`);
  else if (value !== auditEventVersion) errors.push(`invalid group version, allowed versions are ${JSON.stringify([auditEventVersion])}`);
}
const defaultModes: Record<Plugin, AuditMode> = { log: 'blocking', webhook: 'batch' };
const defaultBatch: Record<Plugin, BatchConfig> = { log: defaultLogBatchConfig, webhook: defaultWebhookBatchConfig };

function batchFlags<T>(y: Argv<T>, plugin: Plugin): Argv<T> {
  const d = defaultBatch[plugin];
  return y
    .option(`audit-${plugin}-mode`, {
      type: 'string',
      default: defaultModes[plugin],
      description: `Strategy for sending audit events. Blocking indicates sending events should block server responses. Batch causes the backend to buffer and write events asynchronously. Known modes are ${auditModes.join(',')}.`,
    })
    .option(`audit-${plugin}-batch-buffer-size`, { type: 'string', default: String(d.bufferSize), description: 'The size of the buffer to store events before batching and writing. Only used in batch mode.' })
    .option(`audit-${plugin}-batch-max-size`, { type: 'string', default: String(d.maxBatchSize), description: 'The maximum size of a batch. Only used in batch mode.' })
    .option(`audit-${plugin}-batch-max-wait`, {
      type: 'string',
      default: `${d.maxBatchWaitMs / 1000}s`,
      description: 'The amount of time to wait before force writing the batch that hadn\'t reached the max size. Only used in batch mode.',
    })
    .option(`audit-${plugin}-batch-throttle-enable`, { type: 'boolean', default: d.throttleEnable, description: 'Whether batching throttling is enabled. Only used in batch mode.' })
    .option(`audit-${plugin}-batch-throttle-qps`, { type: 'string', default: String(d.throttleQPS), description: 'Maximum average number of batches per second. Only used in batch mode.' })
    .option(`audit-${plugin}-batch-throttle-burst`, {
      type: 'string',
      default: String(d.throttleBurst),
      description: 'Maximum number of requests sent at the same moment if ThrottleQPS was not utilized before. Only used in batch mode.',
    })
    .option(`audit-${plugin}-truncate-enabled`, { type: 'boolean', default: false, description: 'Whether event and batch truncating is enabled.' })
    .option(`audit-${plugin}-truncate-max-batch-size`, {
      type: 'string',
      default: String(defaultTruncateConfig.maxBatchSize),
      description: 'Maximum size of the batch sent to the underlying backend. Actual serialized size can be several hundreds of bytes greater. If a batch exceeds this limit, it is split into several batches of smaller size.',
    })
    .option(`audit-${plugin}-truncate-max-event-size`, {
      type: 'string',
      default: String(defaultTruncateConfig.maxEventSize),
      description: 'Maximum size of the audit event sent to the underlying backend. If the size of an event is greater than this number, first request and response are removed, and if this doesn\'t reduce the size enough, event is discarded.',
    });
}

export function declareAuditFlags<T>(y: Argv<T>): Argv<T> {
  let out = y
    .option('audit-policy-file', { type: 'string', description: 'Path to the file that defines the audit policy configuration (Policy, audit.plat.io/v1 or audit.k8s.io/v1).' })
    .option('audit-log-path', {
      type: 'string',
      description: 'If set, all requests coming to the apiserver will be logged to this file.  \'-\' means standard out.',
    })
    .option('audit-log-format', { type: 'string', default: 'json', description: 'Format of saved audits. "legacy" indicates 1-line text format for each event. "json" indicates structured json format. Known formats are legacy,json.' })
    .option('audit-log-maxage', { type: 'string', default: '366', description: 'The maximum number of days to retain old audit log files based on the timestamp encoded in their filename.' })
    .option('audit-log-maxbackup', { type: 'string', default: '100', description: 'The maximum number of old audit log files to retain. Setting a value of 0 will mean there\'s no restriction on the number of files.' })
    .option('audit-log-maxsize', { type: 'string', default: '100', description: 'The maximum size in megabytes of the audit log file before it gets rotated.' })
    .option('audit-log-compress', { type: 'boolean', default: false, description: 'If set, the rotated log files will be compressed using gzip.' })
    .option('audit-log-version', { type: 'string', default: auditEventVersion, description: 'API group and version used for serializing audit events written to log.' })
    .option('audit-webhook-version', { type: 'string', default: auditEventVersion, description: 'API group and version used for serializing audit events written to webhook.' })
    .option('audit-webhook-config-file', {
      type: 'string',
      description: 'Path to a kubeconfig formatted file that defines the audit webhook configuration.',
    })
    .option('audit-webhook-initial-backoff', { type: 'string', default: '10s', description: 'The amount of time to wait before retrying the first failed request.' });
  out = batchFlags(batchFlags(out, 'log'), 'webhook');
  return out;
}

function lastValue(raw: Record<string, unknown>, flag: string): unknown {
  const v = raw[flag];
  return Array.isArray(v) ? v[v.length - 1] : v;
}

function intFlag(raw: Record<string, unknown>, flag: string, errors: string[], min: number): number {
  const value = String(lastValue(raw, flag));
  if (!/^[+-]?\d+$/.test(value)) {
    errors.push(`invalid argument ${goQuote(value)} for "--${flag}" flag: strconv.ParseInt: parsing ${goQuote(value)}: invalid syntax`);
    return 0;
  }
  const n = Number(value);
  if (n < min) errors.push(`--${flag} must be ${min === 1 ? 'greater than 0' : 'greater or equal to 0'}, was ${n}`);
  return n;
}

function durationMs(raw: Record<string, unknown>, flag: string, errors: string[]): number {
  const value = String(lastValue(raw, flag));
  const parsed = parseGoDuration(value);
  if (!parsed.ok) {
    errors.push(`invalid argument ${goQuote(value)} for "--${flag}" flag: ${parsed.error}`);
    return 0;
  }
  return nanosecondsToMilliseconds(parsed.nanoseconds);
}

function modeOptions(raw: Record<string, unknown>, plugin: Plugin, errors: string[]): { mode: AuditMode; batch: BatchConfig; truncate?: TruncateConfig } {
  const mode = String(lastValue(raw, `audit-${plugin}-mode`)) as AuditMode;
  if (!auditModes.includes(mode)) errors.push(`invalid audit ${plugin} mode ${mode}, allowed modes are ${JSON.stringify(auditModes.join(','))}`);
  const batch: BatchConfig = {
    bufferSize: intFlag(raw, `audit-${plugin}-batch-buffer-size`, errors, 1),
    maxBatchSize: intFlag(raw, `audit-${plugin}-batch-max-size`, errors, 1),
    maxBatchWaitMs: durationMs(raw, `audit-${plugin}-batch-max-wait`, errors),
    throttleEnable: lastValue(raw, `audit-${plugin}-batch-throttle-enable`) === true,
    throttleQPS: Number(lastValue(raw, `audit-${plugin}-batch-throttle-qps`)),
    throttleBurst: intFlag(raw, `audit-${plugin}-batch-throttle-burst`, errors, 0),
  };
  if (!Number.isFinite(batch.throttleQPS) || batch.throttleQPS < 0) errors.push(`--audit-${plugin}-batch-throttle-qps must be a non-negative number`);
  if (batch.throttleEnable && batch.throttleQPS <= 0) errors.push(`--audit-${plugin}-batch-throttle-qps must be greater than 0 when throttling is enabled`);
  const truncateEnabled = lastValue(raw, `audit-${plugin}-truncate-enabled`) === true;
  const truncate = {
    maxBatchSize: intFlag(raw, `audit-${plugin}-truncate-max-batch-size`, errors, 1),
    maxEventSize: intFlag(raw, `audit-${plugin}-truncate-max-event-size`, errors, 1),
  };
  // plugin/pkg/audit/truncate validation: an event must fit in a batch.
  if (truncateEnabled && truncate.maxEventSize > truncate.maxBatchSize) errors.push(`--audit-${plugin}-truncate-max-event-size can't be greater than --audit-${plugin}-truncate-max-batch-size`);
  return { mode, batch, ...(truncateEnabled ? { truncate } : {}) };
}

export function completeAuditOptions(raw: Record<string, unknown>, errors: string[]): AuditFlags {
  const out: AuditFlags = {};
  const policyFile = lastValue(raw, 'audit-policy-file');
  if (typeof policyFile === 'string' && policyFile !== '') out.policyFile = policyFile;
  const logPath = lastValue(raw, 'audit-log-path');
  if (typeof logPath === 'string' && logPath !== '') {
    const format = String(lastValue(raw, 'audit-log-format'));
    if (format !== 'json' && format !== 'legacy') errors.push(`invalid audit log format ${format}, allowed formats are "legacy,json"`);
    out.log = {
      path: logPath,
      format: format as 'json' | 'legacy',
      maxAgeDays: intFlag(raw, 'audit-log-maxage', errors, 0),
      maxBackups: intFlag(raw, 'audit-log-maxbackup', errors, 0),
      maxSizeMB: intFlag(raw, 'audit-log-maxsize', errors, 0),
      ...(lastValue(raw, 'audit-log-compress') === true ? { compress: true } : {}),
      ...modeOptions(raw, 'log', errors),
    };
    checkGroupVersion(raw, 'log', errors);
  }
  const webhookFile = lastValue(raw, 'audit-webhook-config-file');
  if (typeof webhookFile === 'string' && webhookFile !== '') {
    out.webhook = { configFile: webhookFile, initialBackoffMs: durationMs(raw, 'audit-webhook-initial-backoff', errors), ...modeOptions(raw, 'webhook', errors) };
    checkGroupVersion(raw, 'webhook', errors);
  }
  return out;
}
