import type { Argv } from 'yargs';
import { formatGoDuration, goQuote, millisecondsToNanoseconds, nanosecondsToMilliseconds, parseGoDuration } from '@plat/api-model';
import { defaultWatchCacheCapacity } from '@plat/storage';
import type { AuthOptions } from '@plat/control-plane';
import { completeAuditOptions, declareAuditFlags, type AuditFlags } from './audit-options.js';
import { completeAuthOptions, declareAuthFlags } from './auth-options.js';
import { completeEgressTracingOptions, declareEgressTracingFlags, type EgressTracingFlags } from './egress-tracing-options.js';
import type { LoggingFormat } from './logger.js';

export type StorageBackend = 'sqlite' | 'memory' | 'etcd3';

/** Everything `apiserver` reads from its flags, validated and typed. */
export interface ServerRunOptions {
  bindAddress: string;
  securePort: number;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  clientCAFile?: string;
  tokenAuthFile?: string;
  storageBackend: StorageBackend;
  etcdServers: string[];
  etcdCAFile?: string;
  etcdCertFile?: string;
  etcdKeyFile?: string;
  etcdPrefix: string;
  watchCache: boolean;
  /** --watch-cache-window-events and --watch-cache-window-bytes: the watch cache's window of recent events. */
  watchCacheWindowEvents: number;
  watchCacheWindowBytes: number;
  dataDir: string;
  /** --authorization-mode as given or defaulted (used only without --authorization-config). */
  authorizationModes: string[];
  /** The authentication and authorization flags (auth-options.ts). */
  auth: AuthOptions;
  requestTimeoutMs: number;
  /** --min-request-timeout in seconds: watches without timeoutSeconds last [min, 2·min). */
  minRequestTimeoutSeconds: number;
  /** --http2-max-streams-per-connection (0 = the server's default, 100). */
  http2MaxStreamsPerConnection: number;
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  shutdownDelayMs: number;
  verbosity: number;
  loggingFormat: LoggingFormat;
  /** --egress-selector-config-file and --tracing-config-file (egress-tracing-options.ts). */
  egressTracing: EgressTracingFlags;
  /** The --audit-* flags (audit-options.ts). */
  audit: AuditFlags;
}

/** Flag defaults; kept here so that --help, docs/operations.md and the code agree. */
export const defaults = {
  bindAddress: '127.0.0.1',
  securePort: 6443,
  storageBackend: 'sqlite' as StorageBackend,
  etcdPrefix: '/registry',
  dataDir: '.plat',
  requestTimeout: '1m0s',
  minRequestTimeout: 1800,
  http2MaxStreamsPerConnection: 0,
  maxRequestsInflight: 400,
  maxMutatingRequestsInflight: 200,
  shutdownDelayDuration: '0s',
  watchCacheWindowEvents: defaultWatchCacheCapacity,
  watchCacheWindowBytes: '64Mi',
};

/** Declares the serve flags with Kubernetes' names and help texts. Values stay strings: parsed below. */
export function declareServeFlags<T>(y: Argv<T>): Argv<T> {
  const flags = declareEgressTracingFlags(y)
    .group(
      ['bind-address', 'secure-port', 'tls-cert-file', 'tls-private-key-file', 'http2-max-streams-per-connection', 'shutdown-delay-duration'],
      'Secure serving flags:',
    )
    .option('bind-address', {
      type: 'string',
      default: defaults.bindAddress,
      description:
        'The IP address on which to listen for the --secure-port port. Use 0.0.0.0 (all IPv4 interfaces) or :: (all interfaces) to serve other hosts; the development default serves this host only.',
    })
    .option('secure-port', {
      type: 'string',
      default: String(defaults.securePort),
      description: 'The port on which to serve HTTPS with authentication and authorization. 0 picks a free port and prints it.',
    })
    .option('tls-cert-file', {
      type: 'string',
      description:
        'File containing the default x509 certificate for HTTPS (CA cert, if any, concatenated after server cert). If neither this nor --tls-private-key-file is given, a development PKI is created in --data-dir.',
    })
    .option('tls-private-key-file', { type: 'string', description: 'File containing the default x509 private key matching --tls-cert-file.' })
    .option('http2-max-streams-per-connection', {
      type: 'string',
      default: String(defaults.http2MaxStreamsPerConnection),
      description: 'The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection. Zero means to use the default (100).',
    })
    .option('shutdown-delay-duration', {
      type: 'string',
      default: defaults.shutdownDelayDuration,
      description: 'Time to delay the termination: /readyz fails during this time while requests are still served.',
    })
    .group(['client-ca-file', 'token-auth-file'], 'Authentication flags:')
    .option('client-ca-file', {
      type: 'string',
      description:
        'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate (groups: its Organizations). Defaults to the development CA when the development PKI is used.',
    })
    .option('token-auth-file', {
      type: 'string',
      description: 'If set, the file that will be used to secure the secure port of the API server via token authentication (CSV: token,user,uid,"group1,group2").',
    })
    .group(
      [
        'storage-backend',
        'data-dir',
        'etcd-servers',
        'etcd-cafile',
        'etcd-certfile',
        'etcd-keyfile',
        'etcd-prefix',
        'watch-cache',
        'watch-cache-window-events',
        'watch-cache-window-bytes',
      ],
      'Storage flags:',
    )
    .option('storage-backend', {
      type: 'string',
      default: defaults.storageBackend,
      description: "The storage backend for persistence. Options: 'sqlite' (embedded, in --data-dir), 'memory' (lost on exit), 'etcd3'.",
    })
    .option('data-dir', {
      type: 'string',
      default: defaults.dataDir,
      description: 'Directory for the SQLite database, the development PKI and admin.conf.',
    })
    .option('etcd-servers', { type: 'string', description: 'List of etcd servers to connect with (scheme://ip:port), comma separated.' })
    .option('etcd-cafile', { type: 'string', description: 'SSL Certificate Authority file used to secure etcd communication.' })
    .option('etcd-certfile', { type: 'string', description: 'SSL certification file used to secure etcd communication.' })
    .option('etcd-keyfile', { type: 'string', description: 'SSL key file used to secure etcd communication.' })
    .option('etcd-prefix', { type: 'string', default: defaults.etcdPrefix, description: 'The prefix to prepend to all resource paths in etcd.' })
    .option('watch-cache', { type: 'boolean', default: true, description: 'Enable watch caching in the apiserver.' })
    .option('watch-cache-window-events', {
      type: 'string',
      default: String(defaults.watchCacheWindowEvents),
      description: 'Most recent events the watch cache keeps for watches resuming from a resourceVersion; older ones answer 410 Gone.',
    })
    .option('watch-cache-window-bytes', {
      type: 'string',
      default: defaults.watchCacheWindowBytes,
      description:
        "Most bytes of recent events (their objects' stored JSON) the watch cache keeps, in bytes or with a Ki, Mi or Gi suffix; past it the oldest events go first.",
    })
    .group(['request-timeout', 'min-request-timeout', 'max-requests-inflight', 'max-mutating-requests-inflight'], 'Generic flags:')
    .option('request-timeout', {
      type: 'string',
      default: defaults.requestTimeout,
      description:
        'An optional field indicating the duration a handler must keep a request open before timing it out. This is the default request timeout for requests but may be overridden by flags such as --min-request-timeout for specific types of requests (watches are not cut).',
    })
    .option('min-request-timeout', {
      type: 'string',
      default: String(defaults.minRequestTimeout),
      description:
        'An optional field indicating the minimum number of seconds a handler must keep a request open before timing it out. Currently only honored by the watch request handler, which picks a randomized value above this number as the connection timeout, to spread out load.',
    })
    .option('max-requests-inflight', {
      type: 'string',
      default: String(defaults.maxRequestsInflight),
      description:
        'This and --max-mutating-requests-inflight are summed to determine the server\'s total concurrency limit. The maximum number of non-mutating requests in flight at a given time; above it the server answers 429. 0 means no limit.',
    })
    .option('max-mutating-requests-inflight', {
      type: 'string',
      default: String(defaults.maxMutatingRequestsInflight),
      description: 'The maximum number of mutating requests in flight at a given time; above it the server answers 429. 0 means no limit.',
    })
    .group(['egress-selector-config-file', 'tracing-config-file'], 'Egress and tracing flags:')
    .group(['v', 'logging-format'], 'Logs flags:')
    .option('v', { type: 'string', default: '0', description: 'number for the log level verbosity (2 logs one line per request)' })
    .option('logging-format', { type: 'string', default: 'text', description: 'Sets the log format. Permitted formats: "json", "text".' });
  return declareAuditFlags(declareAuthFlags(flags));
}

export type RawFlags = Record<string, unknown>;

/** pflag's wording for a value that does not parse. */
function invalidArgument(value: string, flag: string, detail: string): string {
  return `invalid argument ${goQuote(value)} for "--${flag}" flag: ${detail}`;
}

function parseIntFlag(raw: RawFlags, flag: string, errors: string[], min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const value = String(raw[flag]);
  if (!/^[+-]?\d+$/.test(value)) {
    errors.push(invalidArgument(value, flag, `strconv.ParseInt: parsing ${goQuote(value)}: invalid syntax`));
    return 0;
  }
  const n = Number(value);
  if (n < min || n > max) errors.push(`--${flag} ${n} must be between ${min} and ${max}, inclusive.`);
  return n;
}

/** A duration flag (`--request-timeout=1m0s`) in milliseconds; pflag's message with Go's error when it does not parse. */
function durationFlag(raw: RawFlags, flag: string, errors: string[]): number {
  const value = String(raw[flag]);
  const parsed = parseGoDuration(value);
  if (parsed.ok) return nanosecondsToMilliseconds(parsed.nanoseconds);
  errors.push(invalidArgument(value, flag, parsed.error));
  return 0;
}

const byteSuffixes: Record<string, number> = { '': 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };

/** A size in bytes: digits, optionally with a binary suffix as Kubernetes quantities write them (`64Mi`). */
function parseByteSize(raw: RawFlags, flag: string, errors: string[]): number {
  const value = String(raw[flag]);
  const m = /^(\d+)(Ki|Mi|Gi)?$/.exec(value);
  const n = m ? Number(m[1]) * byteSuffixes[m[2] ?? '']! : NaN;
  if (!Number.isSafeInteger(n) || n < 1) {
    errors.push(invalidArgument(value, flag, 'expected a positive number of bytes, optionally with a Ki, Mi or Gi suffix'));
    return 0;
  }
  return n;
}

function optionalString(raw: RawFlags, flag: string): string | undefined {
  const v = raw[flag];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function stringList(raw: RawFlags, flag: string): string[] {
  const v = raw[flag];
  const values = Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : [];
  return values.flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s !== '');
}

function ipAddress(value: string): boolean {
  return /^(\d{1,3})(\.\d{1,3}){3}$/.test(value) ? value.split('.').every((o) => Number(o) <= 255) : /^[0-9a-fA-F:]+$/.test(value) && value.includes(':');
}

/** Turns the raw flags into ServerRunOptions, or the list of every problem found (Kubernetes' wording where it has one). */
export function completeServeOptions(raw: RawFlags): { options?: ServerRunOptions; errors: string[] } {
  const errors: string[] = [];
  const bindAddress = String(raw['bind-address']);
  if (!ipAddress(bindAddress)) errors.push(`--bind-address ${goQuote(bindAddress)} is not a valid IP address`);
  const securePort = parseIntFlag(raw, 'secure-port', errors, 0, 65535);

  const tlsCertFile = optionalString(raw, 'tls-cert-file');
  const tlsPrivateKeyFile = optionalString(raw, 'tls-private-key-file');
  if (!!tlsCertFile !== !!tlsPrivateKeyFile) {
    errors.push('--tls-cert-file and --tls-private-key-file must be given together');
  }

  const storageBackend = String(raw['storage-backend']);
  if (!['sqlite', 'memory', 'etcd3'].includes(storageBackend)) {
    errors.push(`--storage-backend invalid, allowed values: 'sqlite', 'memory', 'etcd3'; got ${goQuote(storageBackend)}`);
  }
  const etcdServers = stringList(raw, 'etcd-servers');
  if (storageBackend === 'etcd3' && etcdServers.length === 0) errors.push('--etcd-servers must be specified');
  for (const s of etcdServers) {
    if (!/^https?:\/\/[^/]+$/.test(s) && !/^https?:\/\/[^/]+\/$/.test(s)) errors.push(`--etcd-servers: ${goQuote(s)} is not of the form scheme://host:port`);
  }
  const etcdCertFile = optionalString(raw, 'etcd-certfile');
  const etcdKeyFile = optionalString(raw, 'etcd-keyfile');
  if (!!etcdCertFile !== !!etcdKeyFile) errors.push('--etcd-certfile and --etcd-keyfile must be given together');

  const auth = completeAuthOptions(raw, errors);

  const requestTimeoutMs = durationFlag(raw, 'request-timeout', errors);
  if (requestTimeoutMs < 0) errors.push('--request-timeout can not be negative value');
  const shutdownDelayMs = durationFlag(raw, 'shutdown-delay-duration', errors);
  if (shutdownDelayMs < 0) errors.push(`--shutdown-delay-duration can not be negative value`);
  const minRequestTimeoutSeconds = parseIntFlag(raw, 'min-request-timeout', errors);
  const http2MaxStreamsPerConnection = parseIntFlag(raw, 'http2-max-streams-per-connection', errors, 0, 2 ** 32 - 1);
  const maxRequestsInflight = parseIntFlag(raw, 'max-requests-inflight', errors);
  const watchCacheWindowEvents = parseIntFlag(raw, 'watch-cache-window-events', errors, 1);
  const watchCacheWindowBytes = parseByteSize(raw, 'watch-cache-window-bytes', errors);
  const maxMutatingRequestsInflight = parseIntFlag(raw, 'max-mutating-requests-inflight', errors);
  const verbosity = parseIntFlag(raw, 'v', errors, 0, 10);
  const loggingFormat = String(raw['logging-format']);
  if (loggingFormat !== 'text' && loggingFormat !== 'json') {
    errors.push(`format: Invalid value: ${goQuote(loggingFormat)}: Unsupported log format`);
  }
  const dataDir = String(raw['data-dir']);
  const egressTracing = completeEgressTracingOptions(raw, errors);
  const audit = completeAuditOptions(raw, errors);
  if (dataDir === '') errors.push('--data-dir must not be empty');

  if (errors.length > 0) return { errors };
  return {
    errors,
    options: {
      bindAddress,
      securePort,
      tlsCertFile,
      tlsPrivateKeyFile,
      clientCAFile: optionalString(raw, 'client-ca-file'),
      tokenAuthFile: optionalString(raw, 'token-auth-file'),
      storageBackend: storageBackend as StorageBackend,
      etcdServers,
      etcdCAFile: optionalString(raw, 'etcd-cafile'),
      etcdCertFile,
      etcdKeyFile,
      etcdPrefix: String(raw['etcd-prefix']),
      watchCache: raw['watch-cache'] !== false,
      watchCacheWindowEvents,
      watchCacheWindowBytes,
      dataDir,
      authorizationModes: auth.authorization.modes,
      auth,
      requestTimeoutMs,
      minRequestTimeoutSeconds,
      http2MaxStreamsPerConnection,
      maxRequestsInflight,
      maxMutatingRequestsInflight,
      shutdownDelayMs,
      verbosity,
      loggingFormat: loggingFormat as LoggingFormat,
      egressTracing,
      audit,
    },
  };
}

/** The flags as the server logs them at start (FLAG: --name="value", as Kubernetes does at -v=1). */
export function describeOptions(o: ServerRunOptions): Record<string, string> {
  return {
    'bind-address': o.bindAddress,
    'secure-port': String(o.securePort),
    'storage-backend': o.storageBackend,
    'data-dir': o.dataDir,
    'authorization-mode': o.authorizationModes.join(','),
    'request-timeout': formatGoDuration(millisecondsToNanoseconds(o.requestTimeoutMs)),
    'min-request-timeout': String(o.minRequestTimeoutSeconds),
    'http2-max-streams-per-connection': String(o.http2MaxStreamsPerConnection),
    'max-requests-inflight': String(o.maxRequestsInflight),
    'max-mutating-requests-inflight': String(o.maxMutatingRequestsInflight),
  };
}
