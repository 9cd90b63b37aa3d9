import os from 'node:os';
import type { TracingConfiguration } from '@plat/config';
import type { ServerLogger } from '@plat/server';
import { createTracing, disabledTracing, type Tracing } from '@plat/telemetry';

/**
 * The server's tracing: without a TracingConfiguration (`--tracing-config-file`) the no-op
 * tracer (the OpenTelemetry SDK is never loaded); with it, the OTLP gRPC exporter. Exporter
 * failures are logged, rate-limited to one line a minute, and never reach requests.
 */
export async function setupTracing(
  config: TracingConfiguration | undefined,
  deps: { logger: ServerLogger; version: string; instanceId?: string; exportDelayMs?: number },
): Promise<Tracing> {
  if (!config) return disabledTracing();
  let lastReport = 0;
  const tracing = await createTracing(
    { endpoint: config.endpoint, samplingRatePerMillion: config.samplingRatePerMillion },
    {
      serviceVersion: deps.version,
      instanceId: deps.instanceId ?? `${os.hostname()}-${process.pid}`,
      exportDelayMs: deps.exportDelayMs,
      onExportError: (err) => {
        const now = Date.now();
        if (now - lastReport < 60_000) return;
        lastReport = now;
        deps.logger.error('Exporting spans failed', { endpoint: config.endpoint ?? 'localhost:4317', err: err.message });
      },
    },
  );
  deps.logger.info(
    'Tracing enabled',
    { endpoint: config.endpoint ?? 'localhost:4317', samplingRatePerMillion: config.samplingRatePerMillion ?? 'unset (parent-based)' },
    0,
  );
  return tracing;
}
