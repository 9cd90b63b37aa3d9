import { readFileSync } from 'node:fs';
import path from 'node:path';
import { nanosecondsToMilliseconds, parseGoDuration } from '@plat/api-model';
import { ClientError } from './client-error.js';
import type { AuthInfo, Cluster, LoadedKubeConfig } from './kubeconfig.js';

/** The identity and transport flags every command shares (`--server`, `--token`, `--as`...). */
export interface ConfigOverrides {
  context?: string;
  cluster?: string;
  user?: string;
  server?: string;
  token?: string;
  username?: string;
  password?: string;
  clientCertificate?: string;
  clientKey?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
  certificateAuthority?: string;
  insecureSkipTlsVerify?: boolean;
  tlsServerName?: string;
  as?: string;
  asGroups?: string[];
  asUid?: string;
  requestTimeout?: string;
  disableCompression?: boolean;
  namespace?: string;
}

/** Everything needed to talk to one server: the resolved cluster, credentials and identity. */
export interface RestConfig {
  server: string;
  contextName: string;
  clusterName: string;
  userName: string;
  namespace: string;
  /** True when the namespace came from `-n` rather than the context. */
  namespaceExplicit: boolean;
  ca?: string;
  cert?: string;
  key?: string;
  insecureSkipTlsVerify: boolean;
  tlsServerName?: string;
  token?: string;
  username?: string;
  password?: string;
  impersonate?: { user?: string; groups: string[]; uid?: string; extra: Record<string, string[]> };
  /** 0 means no timeout. */
  timeoutMs: number;
  disableCompression: boolean;
  userAgent: string;
}

const invalidTimeout =
  'Invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)';

/**
 * `--request-timeout` in milliseconds, as clientcmd reads it: a bare integer is seconds, anything
 * else a Go duration (`1s`, `2m30s`, `1.5h`); a negative value or anything that does not parse
 * gets kubectl's one message.
 */
export function parseDuration(value: string): number {
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const parsed = parseGoDuration(v);
  if (!parsed.ok || parsed.nanoseconds < 0n) throw new ClientError('InvalidFlag', invalidTimeout);
  return nanosecondsToMilliseconds(parsed.nanoseconds);
}

function resolvePath(file: string | undefined, origin: string | undefined): string | undefined {
  if (!file) return undefined;
  return path.isAbsolute(file) || !origin ? file : path.join(path.dirname(origin), file);
}

function readPem(file: string, what: string, owner: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file or directory' : (err as Error).message;
    throw new ClientError('ConfigInvalid', `unable to read ${what} ${path.resolve(file)} for ${owner} due to open ${path.resolve(file)}: ${reason}`);
  }
}

function fromBase64(data: string | undefined): string | undefined {
  return data ? Buffer.from(data, 'base64').toString('utf8') : undefined;
}

/**
 * Resolves the effective client configuration from a loaded kubeconfig and the flags, following
 * clientcmd: `--context` picks the context, `--cluster`/`--user` replace its parts, and explicit
 * flags override single fields. With no usable configuration the server is http://localhost:8080.
 */
export function resolveRestConfig(loaded: LoadedKubeConfig, overrides: ConfigOverrides = {}, userAgent = 'clientctl'): RestConfig {
  const cfg = loaded.config;
  const contextName = overrides.context || cfg['current-context'];
  const ctxEntry = cfg.contexts.find((c) => c.name === contextName);
  if (overrides.context && !ctxEntry) {
    throw new ClientError('ContextNotFound', `context was not found for specified context: ${overrides.context}`);
  }
  const ctx = ctxEntry?.context ?? {};
  const clusterName = overrides.cluster || ctx.cluster || '';
  const userName = overrides.user || ctx.user || '';
  const clusterEntry = cfg.clusters.find((c) => c.name === clusterName);
  const userEntry = cfg.users.find((u) => u.name === userName);
  if (overrides.cluster && !clusterEntry && !overrides.server) {
    throw new ClientError('ClusterNotFound', `no server found for cluster "${overrides.cluster}"`);
  }
  if (overrides.user && !userEntry) {
    throw new ClientError('UserNotFound', `auth info "${overrides.user}" does not exist`);
  }
  const cluster: Cluster = clusterEntry?.cluster ?? {};
  const user: AuthInfo = userEntry?.user ?? {};
  const clusterOrigin = loaded.origin.clusters.get(clusterName);
  const userOrigin = loaded.origin.users.get(userName);

  let server = overrides.server || cluster.server || '';
  if (!server) server = 'http://localhost:8080';
  else if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(server)) server = `https://${server}`;
  server = server.replace(/\/+$/, '');

  const insecure = overrides.insecureSkipTlsVerify ?? cluster['insecure-skip-tls-verify'] ?? false;
  if (overrides.insecureSkipTlsVerify && overrides.certificateAuthority) {
    throw new ClientError('ConfigInvalid', 'specifying a root certificates file with the insecure flag is not allowed');
  }
  let ca: string | undefined;
  if (overrides.certificateAuthority) ca = readPem(overrides.certificateAuthority, 'certificate-authority', clusterName);
  else if (!insecure) {
    ca = fromBase64(cluster['certificate-authority-data']);
    const caFile = resolvePath(cluster['certificate-authority'], clusterOrigin);
    if (!ca && caFile) ca = readPem(caFile, 'certificate-authority', clusterName);
  }

  let cert = overrides.clientCertificateData;
  if (!cert && overrides.clientCertificate) cert = readPem(overrides.clientCertificate, 'client-cert', userName);
  if (!cert) cert = fromBase64(user['client-certificate-data']);
  if (!cert && user['client-certificate']) cert = readPem(resolvePath(user['client-certificate'], userOrigin)!, 'client-cert', userName);
  let key = overrides.clientKeyData;
  if (!key && overrides.clientKey) key = readPem(overrides.clientKey, 'client-key', userName);
  if (!key) key = fromBase64(user['client-key-data']);
  if (!key && user['client-key']) key = readPem(resolvePath(user['client-key'], userOrigin)!, 'client-key', userName);

  let token = overrides.token || user.token;
  if (!token && user.tokenFile) token = readPem(resolvePath(user.tokenFile, userOrigin)!, 'tokenFile', userName).trim();
  const username = overrides.username || user.username;
  const password = overrides.password || user.password;
  if (token && username) {
    throw new ClientError('ConfigInvalid', `more than one authentication method found for ${userName || 'the user'}; found [token basicAuth], only one is allowed`);
  }
  const asUser = overrides.as || user.as;
  const asGroups = overrides.asGroups?.length ? overrides.asGroups : (user['as-groups'] ?? []);
  const asUid = overrides.asUid || user['as-uid'];
  if (!asUser && (asGroups.length || asUid)) {
    throw new ClientError('InvalidFlag', 'requesting uid, groups or user-extra for  without impersonating a user');
  }
  const impersonate = asUser ? { user: asUser, groups: asGroups, uid: asUid, extra: user['as-user-extra'] ?? {} } : undefined;

  return {
    server,
    contextName: ctxEntry ? contextName : '',
    clusterName,
    userName,
    namespace: overrides.namespace || ctx.namespace || 'default',
    namespaceExplicit: !!overrides.namespace,
    ca: insecure ? undefined : ca,
    cert,
    key,
    insecureSkipTlsVerify: insecure,
    tlsServerName: overrides.tlsServerName || cluster['tls-server-name'],
    token,
    username,
    password,
    impersonate,
    timeoutMs: overrides.requestTimeout ? parseDuration(overrides.requestTimeout) : 0,
    disableCompression: overrides.disableCompression ?? cluster['disable-compression'] ?? false,
    userAgent,
  };
}
