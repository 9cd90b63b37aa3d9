import type { Registry } from 'prom-client';
import { completeConfig, type ApiServerOptions } from './config.js';
import { buildHandlerChain } from './handler-chain.js';
import { LoopbackClient } from './loopback.js';
import { buildRoutes } from './routes.js';
import { serve, type ServerAddress } from './serving.js';

export { defaultLimits, type ApiServerOptions, type ServerLimits } from './config.js';
export type { ServerAddress } from './serving.js';
export { DynamicResources, maxDynamicResources } from './dynamic-resources.js';

export interface ApiServer {
  listen(opts?: { host?: string; port?: number }): Promise<ServerAddress>;
  address(): ServerAddress | null;
  /** Graceful: /readyz fails, the listener closes, watches end, in-flight requests drain. */
  close(): Promise<void>;
  readonly metrics: Registry;
  /**
   * The server's client to itself (Kubernetes' loopback client): requests through the whole chain
   * as `system:apiserver` in `system:masters`, before and after listen().
   */
  readonly loopback: LoopbackClient;
}

/**
 * Builds the API server; nothing listens until listen(). As k8s.io/apiserver: options → completed
 * config (config.ts) → routes (routes.ts) inside the filter chain (handler-chain.ts) → serving
 * (serving.ts).
 */
export function createApiServer(options: ApiServerOptions): ApiServer {
  const config = completeConfig(options);
  const handler = buildHandlerChain(config, buildRoutes(config));
  const serving = serve(config, handler);
  const { gitVersion, gitCommit, platform } = config.versionInfo;
  // Kubernetes' DefaultKubernetesUserAgent with the brand rule: the field manager is `plat-apiserver`.
  const loopback = new LoopbackClient(handler, `plat-apiserver/${gitVersion} (${platform}) plat/${gitCommit}`);
  return {
    metrics: config.metrics.registry,
    loopback,
    listen: (opts) => serving.listen(opts),
    address: () => config.lifecycle.address,
    close: () => {
      config.stopDynamic();
      return serving.close();
    },
  };
}
