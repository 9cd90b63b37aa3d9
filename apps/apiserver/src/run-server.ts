import fs from 'node:fs/promises';
import path from 'node:path';
import { createStaticTokenAuthenticator, createX509Authenticator, parseTokenFile, type Authenticator, type JwtAuthenticatorOptions, type TokenAuthenticator } from '@plat/auth';
import { clusterTrustBundleResource, createApiServer } from '@plat/server';
import { openStorage, type BackendOptions, type Storage } from '@plat/storage';
import { adminKubeconfig, clientURL, writeAdminKubeconfig } from './admin-kubeconfig.js';
import { AuthenticationConfigError } from './authentication-setup.js';
import { AuthorizationConfigError } from './authorization-setup.js';
import { configureIdentity, IdentityFileError } from './identity-setup.js';
import { ServerIdentity } from './server-identity.js';
import { ensureDevPki, type DevPki } from './dev-pki.js';
import { setupEgressTracing } from './egress-tracing-setup.js';
import type { Logger } from './logger.js';
import type { ServerRunOptions } from './options.js';

export interface RunningServer {
  url: string;
  port: number;
  adminKubeconfig?: string;
  devPki?: DevPki;
  /** Graceful stop: the server drains, then storage closes. */
  stop(): Promise<void>;
}

/** A start-up problem the operator must fix (bad file, unreachable backend); main prints it and exits 1. */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}

async function readFlagFile(flag: string, file: string): Promise<string> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    throw new StartupError(`${flag}: ${(err as Error).message}`);
  }
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

/** Builds storage, identity and the HTTPS server from validated options and starts listening. */
/** Knobs for tests and benchmarks, not flags: JWT key loading and config-file polling. */
export interface IdentityTuning {
  keySet?: JwtAuthenticatorOptions['keySet'];
  reloadIntervalMs?: number;
  reloadReadyTimeoutMs?: number;
}

export async function runServer(o: ServerRunOptions, deps: { logger: Logger; version: string; identity?: IdentityTuning }): Promise<RunningServer> {
  const { logger } = deps;
  await fs.mkdir(o.dataDir, { recursive: true, mode: 0o700 });
  // Egress and tracing first: an invalid file stops the start before anything is opened.
  const egressTracing = await setupEgressTracing(o.egressTracing, { ...deps, cwd: process.cwd(), fail: (m) => new StartupError(m) });

  let cert: string;
  let key: string;
  let devPki: DevPki | undefined;
  if (o.tlsCertFile && o.tlsPrivateKeyFile) {
    cert = await readFlagFile('--tls-cert-file', o.tlsCertFile);
    key = await readFlagFile('--tls-private-key-file', o.tlsPrivateKeyFile);
  } else {
    devPki = await ensureDevPki(o.dataDir);
    cert = devPki.serving.certPem;
    key = devPki.serving.keyPem;
    logger.info('Development PKI', { action: devPki.action, dir: devPki.dir }, 0);
  }
  const clientCA = o.clientCAFile ? await readFlagFile('--client-ca-file', o.clientCAFile) : devPki?.ca.certPem;

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
  // Authentication and authorization are reloadable (identity-setup.ts); the server sees stable wrappers.
  const identity = new ServerIdentity(o.requestTimeoutMs > 0 ? o.requestTimeoutMs + 5_000 : 65_000);

  let storage: Storage;
  try {
    storage = await openStorage(await egressTracing.storageBackend(backendOptions(o)), { watchCache: o.watchCache, watchCacheOptions: { capacity: o.watchCacheWindowEvents, capacityBytes: o.watchCacheWindowBytes } });
  } catch (err) {
    if (err instanceof StartupError) throw err;
    await egressTracing.close();
    throw new StartupError(`cannot open storage (--storage-backend=${o.storageBackend}): ${(err as Error).message}${egressTracing.storageHint()}`);
  }

  const server = createApiServer({
    storage,
    authenticator: identity.authenticator,
    authorizer: identity.authorizer,
    resources: [clusterTrustBundleResource()],
    tls: { cert, key, ...(clientCA ? { clientCA } : {}) },
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
  });
  let watchers: { stop(): void };
  try {
    watchers = await configureIdentity(identity, o.auth, {
      x509,
      tokenFile,
      registry: server.metrics,
      logger,
      authorizerHooks: egressTracing.authorizerHooks,
      ...deps.identity,
    });
  } catch (err) {
    await storage.close();
    await egressTracing.close();
    if (err instanceof AuthenticationConfigError || err instanceof AuthorizationConfigError || err instanceof IdentityFileError) {
      throw new StartupError(err.message);
    }
    throw err;
  }
  let address;
  try {
    address = await server.listen({ host: o.bindAddress, port: o.securePort });
  } catch (err) {
    watchers.stop();
    await identity.close();
    await storage.close();
    await egressTracing.close();
    throw new StartupError(`failed to listen on ${o.bindAddress}:${o.securePort}: ${(err as Error).message}`);
  }
  const url = clientURL(o.bindAddress, address.port);
  logger.info('Serving securely', { address: address.url, storage: o.storageBackend }, 0);

  let kubeconfigFile: string | undefined;
  if (devPki) {
    kubeconfigFile = path.join(o.dataDir, 'admin.conf');
    await writeAdminKubeconfig(kubeconfigFile, adminKubeconfig({ server: url, ca: devPki.ca, admin: devPki.admin }));
  }

  let stopping: Promise<void> | undefined;
  return {
    url,
    port: address.port,
    adminKubeconfig: kubeconfigFile,
    devPki,
    stop() {
      stopping ??= (async () => {
        watchers.stop();
        try {
          await server.close();
        } finally {
          await identity.close();
          await storage.close();
          await egressTracing.close();
        }
      })();
      return stopping;
    },
  };
}
