import type { Registry } from 'prom-client';
import { completeConfig, type ApiServerOptions } from './config.js';
import { buildHandlerChain } from './handler-chain.js';
import { buildRoutes } from './routes.js';
import { serve, type ServerAddress } from './serving.js';

export { defaultLimits, type ApiServerOptions, type ServerLimits } from './config.js';
export type { ServerAddress } from './serving.js';

export interface ApiServer {
  listen(opts?: { host?: string; port?: number }): Promise<ServerAddress>;
  address(): ServerAddress | null;
  /** Graceful: /readyz fails, the listener closes, watches end, in-flight requests drain. */
  close(): Promise<void>;
  readonly metrics: Registry;
}

/**
 * Builds the API server; nothing listens until listen(). As k8s.io/apiserver: options → completed
 * config (config.ts) → routes (routes.ts) inside the filter chain (handler-chain.ts) → serving
 * (serving.ts).
 */
export function createApiServer(options: ApiServerOptions): ApiServer {
  const config = completeConfig(options);
  const serving = serve(config, buildHandlerChain(config, buildRoutes(config)));
  return {
    metrics: config.metrics.registry,
    listen: (opts) => serving.listen(opts),
    address: () => config.lifecycle.address,
    close: () => serving.close(),
  };
}
