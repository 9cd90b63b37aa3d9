import type { ServerLogger } from '@plat/server';
import { setupTracing } from './tracing.js';

const logs: string[] = [];
const logger: ServerLogger = {
  info: (m, f) => logs.push(`I ${m} ${JSON.stringify(f)}`),
  error: (m, f) => logs.push(`E ${m} ${JSON.stringify(f)}`),
};

describe('setupTracing', () => {
  it('builds the no-op tracer without a file', async () => {
    const tracing = await setupTracing(undefined, { logger, version: '0.1.0' });
    expect(tracing.enabled).toBe(false);
  });

  it('builds the OTLP tracer from a TracingConfiguration and logs where it exports', async () => {
    const tracing = await setupTracing({ endpoint: '127.0.0.1:1', samplingRatePerMillion: 0 }, { logger, version: '0.1.0', instanceId: 't' });
    try {
      expect(tracing.enabled).toBe(true);
      expect(logs).toContainEqual('I Tracing enabled {"endpoint":"127.0.0.1:1","samplingRatePerMillion":0}');
    } finally {
      await tracing.shutdown();
    }
  });
});
