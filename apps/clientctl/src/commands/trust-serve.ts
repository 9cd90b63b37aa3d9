import { readFileSync } from 'node:fs';
import { parseDuration } from '@plat/client';
import { startSpiffeFederationServer } from '@plat/trust';
import { klogLine, type CommandContext } from '../context.js';
import { CommandError, errorText } from '../errors.js';
import { FlagError } from '../flags.js';
import { selectionOf, stopOnSignals } from './trust.js';
import { filterOf } from './trust-formats.js';

function readPem(flag: string, file: string): string {
  if (!file) throw new FlagError(`required flag(s) "${flag}" not set`);
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new CommandError((err as NodeJS.ErrnoException).code === 'ENOENT' ? `the path "${file}" does not exist` : (err as Error).message);
  }
}

/** HOST:PORT, [IPv6]:PORT or :PORT (all interfaces, as Go's net.Listen). */
function listenAddress(raw: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(raw);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new FlagError(`invalid argument "${raw}" for "--listen" flag: must be HOST:PORT`);
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}

/** `clientctl trust serve --spiffe`: a SPIFFE federation bundle endpoint on the live anchors. */
export async function runTrustServe(ctx: CommandContext): Promise<void> {
  const f = ctx.flags;
  if (!f.bool('spiffe')) throw new CommandError('--spiffe is required: a SPIFFE bundle is the one format trust serve serves', { usageOf: ctx.command });
  const sel = selectionOf(ctx)!;
  const { host, port } = listenAddress(f.str('listen'));
  const cert = readPem('tls-cert-file', f.str('tls-cert-file'));
  const key = readPem('tls-private-key-file', f.str('tls-private-key-file'));
  const path = f.str('path');
  if (!path.startsWith('/')) throw new FlagError(`invalid argument "${path}" for "--path" flag: must start with "/"`);
  const hint = f.str('spiffe-refresh-hint');
  let hintMs: number;
  try {
    hintMs = parseDuration(hint);
  } catch {
    throw new FlagError(`invalid argument "${hint}" for "--spiffe-refresh-hint" flag: must not be negative`);
  }
  const log = (severity: 'I' | 'W' | 'E', message: string) => ctx.io.stderr(klogLine(severity, 'trust-serve.ts', message));
  const stop = stopOnSignals(ctx.io);
  try {
    const server = await startSpiffeFederationServer(ctx.rest(), sel, {
      host,
      port,
      cert,
      key,
      path,
      refreshHintSeconds: Math.max(1, Math.round(hintMs / 1000)),
      filter: filterOf(ctx),
      signal: stop.signal,
      onWarning: (w) => log('W', w),
      onChange: (b) => log('I', `serving spiffe_sequence ${b.sequence}: ${b.anchors.anchors.length} anchor${b.anchors.anchors.length === 1 ? '' : 's'}, digest ${b.anchors.digest.slice(0, 16)}`),
      onError: (err, info) => {
        const text = errorText(err, ctx.command).trim().replace(/\n/g, ' ');
        log('W', info.retryInMs === undefined ? text : `${text} (retrying in ${(info.retryInMs / 1000).toFixed(1)}s)`);
      },
    });
    log('I', `serving the SPIFFE bundle at ${server.url}`);
    await server.done;
  } catch (err) {
    // Stopped before the first anchors arrived: not an error.
    if (!stop.signal.aborted) throw err;
  } finally {
    stop.dispose();
  }
  log('I', 'stopped');
}
