import fs from 'node:fs/promises';
import path from 'node:path';
import { createStaticTokenAuthenticator, createX509Authenticator, parseTokenFile, type Authenticator, type JwtAuthenticatorOptions, type TokenAuthenticator } from '@plat/auth';
import {
  AuditConfigError,
  AuthenticationConfigError,
  AuthorizationConfigError,
  BootstrapPolicyError,
  EgressSetupError,
  IdentityFileError,
  setupAudit,
  createServedResources,
  setupEgressTracing,
  startIdentity,
  type EgressTracing,
  type Identity,
} from '@plat/control-plane';
import { startClusterTrustBundleMetrics } from '@plat/registry';
import { createApiServer, type ServerAddress } from '@plat/server';
import { openStorage, type BackendOptions, type Storage } from '@plat/storage';
import { adminKubeconfig, clientURL, writeAdminKubeconfig } from './admin-kubeconfig.js';
import { ConfigFileError, loadAuditPolicyFile, loadEgressConfigFile, loadTracingConfigFile } from './config-file.js';
import { ensureDevPki, type DevPki } from './dev-pki.js';
import type { Logger } from './logger.js';
import type { ServerRunOptions } from './options.js';

export interface RunningServer {
  url: string;
  port: number;
  adminKubeconfig?: string;
  devPki?: DevPki;
  /** Graceful stop: the server drains, then identity, storage, egress and tracing close. */
  stop(): Promise<void>;
}

/** A start-up problem the operator must fix (bad file, unreachable backend); main prints it and exits 1. */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}

/** Knobs for tests and benchmarks, not flags: JWT key loading and config-file polling. */
export interface IdentityTuning {
  keySet?: JwtAuthenticatorOptions['keySet'];
  reloadIntervalMs?: number;
  reloadReadyTimeoutMs?: number;
}

/** The problems of the packages' set-up functions the operator fixes in a file or flag. */
function asStartupError(err: unknown): unknown {
  const operatorError =
    err instanceof ConfigFileError ||
    err instanceof AuditConfigError ||
    err instanceof EgressSetupError ||
    err instanceof AuthenticationConfigError ||
    err instanceof AuthorizationConfigError ||
    err instanceof IdentityFileError ||
    err instanceof BootstrapPolicyError;
  return operatorError ? new StartupError((err as Error).message) : err;
}

async function readFlagFile(flag: string, file: string): Promise<string> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    throw new StartupError(`${flag}: ${(err as Error).message}`);
  }
}

/** --egress-selector-config-file and --tracing-config-file, loaded and built. */
async function egressAndTracing(o: ServerRunOptions, deps: { logger: Logger; version: string }): Promise<EgressTracing> {
  const cwd = process.cwd();
  const { egressSelectorConfigFile, tracingConfigFile } = o.egressTracing;
  const egress = egressSelectorConfigFile ? await loadEgressConfigFile(egressSelectorConfigFile, cwd, deps.logger) : undefined;
  const tracing = tracingConfigFile ? await loadTracingConfigFile(tracingConfigFile, cwd, deps.logger) : undefined;
  return setupEgressTracing({ egress, tracing }, { ...deps, cwd });
}

/** --tls-cert-file and --tls-private-key-file, else the development PKI in --data-dir; --client-ca-file or the dev CA. */
async function servingTls(o: ServerRunOptions, logger: Logger): Promise<{ cert: string; key: string; clientCA?: string; devPki?: DevPki }> {
  if (o.tlsCertFile && o.tlsPrivateKeyFile) {
    const cert = await readFlagFile('--tls-cert-file', o.tlsCertFile);
    const key = await readFlagFile('--tls-private-key-file', o.tlsPrivateKeyFile);
    const clientCA = o.clientCAFile ? await readFlagFile('--client-ca-file', o.clientCAFile) : undefined;
    return { cert, key, clientCA };
  }
  const devPki = await ensureDevPki(o.dataDir);
  logger.info('Development PKI', { action: devPki.action, dir: devPki.dir }, 0);
  const clientCA = o.clientCAFile ? await readFlagFile('--client-ca-file', o.clientCAFile) : devPki.ca.certPem;
  return { cert: devPki.serving.certPem, key: devPki.serving.keyPem, clientCA, devPki };
}

/** --client-ca-file's client certificate authenticator and --token-auth-file's tokens. */
async function flagAuthenticators(o: ServerRunOptions, clientCA: string | undefined, logger: Logger): Promise<{ x509?: Authenticator; tokenFile?: TokenAuthenticator }> {
  let x509: Authenticator | undefined;
  if (clientCA) {
    try {
      x509 = createX509Authenticator({ clientCA });
    } catch (err) {
      throw new StartupError(`--client-ca-file: ${(err as Error).message}`);
    }
  }
  let tokenFile: TokenAuthenticator | undefined;
  if (o.tokenAuthFile) {
    const content = await readFlagFile('--token-auth-file', o.tokenAuthFile);
    let parsed;
    try {
      parsed = parseTokenFile(content, o.tokenAuthFile);
    } catch (err) {
      throw new StartupError(`--token-auth-file: ${(err as Error).message}`);
    }
    for (const w of parsed.warnings) logger.info(w.message, {}, 0);
    tokenFile = createStaticTokenAuthenticator(parsed.tokens);
  }
  return { x509, tokenFile };
}

function backendOptions(o: ServerRunOptions): BackendOptions {
  switch (o.storageBackend) {
    case 'memory':
      return { backend: 'memory' };
    case 'sqlite':
      return { backend: 'sqlite', dataDir: o.dataDir };
    case 'etcd3':
      return {
        backend: 'etcd3',
        servers: o.etcdServers,
        caFile: o.etcdCAFile,
        certFile: o.etcdCertFile,
        keyFile: o.etcdKeyFile,
        prefix: o.etcdPrefix,
      };
  }
}

/** --storage-backend and its flags, through the `etcd` egress selection when it is proxied. */
async function storageFor(o: ServerRunOptions, egressTracing: EgressTracing, logger: Logger): Promise<Storage> {
  const backend = await egressTracing.storageBackend(backendOptions(o));
  try {
    return await openStorage(backend, {
      watchCache: o.watchCache,
      watchCacheOptions: { capacity: o.watchCacheWindowEvents, capacityBytes: o.watchCacheWindowBytes },
      logger,
    });
  } catch (err) {
    throw new StartupError(`cannot open storage (--storage-backend=${o.storageBackend}): ${(err as Error).message}${egressTracing.storageHint()}`);
  }
}

/**
 * Builds egress and tracing, TLS, storage, identity and the HTTPS server from validated options
 * (one call per concern) and starts listening. What was opened is closed again when a later
 * step fails.
 */
export async function runServer(o: ServerRunOptions, deps: { logger: Logger; version: string; identity?: IdentityTuning }): Promise<RunningServer> {
  const { logger } = deps;
  const opened: (() => Promise<void>)[] = [];
  const closeOpened = async () => {
    for (const close of opened.splice(0).reverse()) await close().catch(() => undefined);
  };
  try {
    await fs.mkdir(o.dataDir, { recursive: true, mode: 0o700 });
    // Egress and tracing first: an invalid file stops the start before anything is opened.
    const egressTracing = await egressAndTracing(o, deps);
    opened.push(() => egressTracing.close());
    const { policyFile, ...auditBackends } = o.audit;
    const policy = policyFile ? await loadAuditPolicyFile(policyFile, process.cwd(), logger) : undefined;
    const audit = setupAudit({ policy, ...auditBackends }, { registry: egressTracing.metricsRegistry, logger });
    // Closed after the server: what the last requests recorded is written or sent first.
    if (audit) opened.push(() => audit.backend.shutdown());
    const tls = await servingTls(o, logger);
    const { x509, tokenFile } = await flagAuthenticators(o, tls.clientCA, logger);
    const storage = await storageFor(o, egressTracing, logger);
    opened.push(() => storage.close());
    // The served resources and the RBAC objects the authorizer reads; their controllers start
    // once the server's REST handlers exist (below).
    const served = createServedResources(storage, { logger });
    opened.push(() => served.stop());
    // Authentication and authorization are reloadable; the server sees stable wrappers.
    const identity: Identity = await startIdentity(o.auth, {
      x509,
      tokenFile,
      registry: egressTracing.metricsRegistry,
      logger,
      requestTimeoutMs: o.requestTimeoutMs,
      authorizerHooks: egressTracing.authorizerHooks,
      rbacResolver: served.rbacResolver,
      ...deps.identity,
    });
    opened.push(() => identity.close());
    const server = createApiServer({
      storage,
      authenticator: identity.authenticator,
      authorizer: identity.authorizer,
      resources: served.resources,
      dynamicResources: served.dynamicResources,
      tls: { cert: tls.cert, key: tls.key, ...(tls.clientCA ? { clientCA: tls.clientCA } : {}) },
      limits: {
        maxRequestsInFlight: o.maxRequestsInflight,
        maxMutatingRequestsInFlight: o.maxMutatingRequestsInflight,
        requestTimeoutMs: o.requestTimeoutMs,
        minRequestTimeoutSeconds: o.minRequestTimeoutSeconds,
        ...(o.http2MaxStreamsPerConnection > 0 ? { http2MaxStreamsPerConnection: o.http2MaxStreamsPerConnection } : {}),
      },
      logger,
      version: { gitVersion: `v${deps.version}` },
      shutdownDelayMs: o.shutdownDelayMs,
      tracing: egressTracing.tracing,
      metricsRegistry: egressTracing.metricsRegistry,
      audit,
    });
    // Closed before the controllers and storage; closed again (a no-op) by stop().
    opened.push(() => server.close());
    // Kubernetes' post-start hooks, run before serving: the bootstrap policy reconciled through
    // the server's loopback client, the RBAC objects listed, the controllers running.
    await served.startControllers(server.loopback);
    let address: ServerAddress;
    try {
      address = await server.listen({ host: o.bindAddress, port: o.securePort });
    } catch (err) {
      throw new StartupError(`failed to listen on ${o.bindAddress}:${o.securePort}: ${(err as Error).message}`);
    }
    const url = clientURL(o.bindAddress, address.port);
    logger.info('Serving securely', { address: address.url, storage: o.storageBackend }, 0);

    let kubeconfigFile: string | undefined;
    if (tls.devPki) {
      kubeconfigFile = path.join(o.dataDir, 'admin.conf');
      await writeAdminKubeconfig(kubeconfigFile, adminKubeconfig({ server: url, ca: tls.devPki.ca, admin: tls.devPki.admin }));
    }

    // Per-signer gauges of the stored ClusterTrustBundles on /metrics, fed by a watch of the store.
    const trustBundleMetrics = startClusterTrustBundleMetrics({ storage, registry: server.metrics, logger, cache: served.clusterTrustBundleCache });
    opened.push(() => trustBundleMetrics.stop());
    let stopping: Promise<void> | undefined;
    return {
      url,
      port: address.port,
      adminKubeconfig: kubeconfigFile,
      devPki: tls.devPki,
      stop() {
        stopping ??= (async () => {
          try {
            await server.close();
          } finally {
            await closeOpened();
          }
        })();
        return stopping;
      },
    };
  } catch (err) {
    await closeOpened();
    throw asStartupError(err);
  }
}
