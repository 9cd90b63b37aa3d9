import type { RequestContext } from './context.js';
import { newPathNotFound, writeText } from './response.js';

/** A named check behind /healthz, /livez or /readyz; it rejects when failing (with a HealthCheckError, say). */
export interface HealthCheck {
  name: string;
  check(signal: AbortSignal): Promise<void>;
}

/** A check that fails: the message is the reason `/<kind>/<check>` prints. */
export class HealthCheckError extends Error {
  readonly code = 'ERR_HEALTH_CHECK';
  constructor(message: string) {
    super(message);
    this.name = 'HealthCheckError';
  }
}

const checkTimeoutMs = 5_000;

async function run(check: HealthCheck): Promise<string | undefined> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('timed out')), checkTimeoutMs);
  try {
    await Promise.race([
      check.check(controller.signal),
      new Promise((_, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason as Error))),
    ]);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Kubernetes' healthz handlers: `/<kind>` runs every check (minus `?exclude=`), `/<kind>/<check>`
 * one; the answer is `ok`, or with `?verbose` one `[+]name ok` line per check. A failing check
 * makes it 500 with the verbose listing (reasons withheld, as Kubernetes does).
 */
export async function serveHealth(ctx: RequestContext, kind: string, sub: string, checks: readonly HealthCheck[]): Promise<void> {
  if (sub) {
    const check = checks.find((c) => c.name === sub);
    if (!check) throw newPathNotFound();
    const failure = await run(check);
    if (failure === undefined) writeText(ctx, 200, 'ok');
    else writeText(ctx, 500, `internal server error: ${failure}\n`);
    return;
  }
  const excluded = new Set(ctx.query.getAll('exclude'));
  const verbose = ctx.query.has('verbose');
  const results = await Promise.all(
    checks.map(async (c) => ({ name: c.name, excluded: excluded.has(c.name), failure: excluded.has(c.name) ? undefined : await run(c) })),
  );
  const failed = results.some((r) => r.failure !== undefined);
  const lines = results.map((r) =>
    r.excluded ? `[+]${r.name} excluded: ok` : r.failure === undefined ? `[+]${r.name} ok` : `[-]${r.name} failed: reason withheld`,
  );
  for (const name of excluded) {
    if (!checks.some((c) => c.name === name)) lines.push(`warn: some health checks cannot be excluded: no matches for "${name}"`);
  }
  if (failed) {
    writeText(ctx, 500, `${lines.join('\n')}\n${kind} check failed\n`);
    return;
  }
  writeText(ctx, 200, verbose ? `${lines.join('\n')}\n${kind} check passed\n` : 'ok');
}
