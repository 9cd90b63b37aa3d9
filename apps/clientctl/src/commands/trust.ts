import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { formatMetaTime as rfc3339, humanDuration, parseToLabelSelectorObject } from '@plat/api-model';
import { goJson, goYaml, parseDuration } from '@plat/client';
import {
  anchorsExpiringWithin,
  renderExpiryTimeline,
  encodeTrustAnchors,
  filterTrustAnchors,
  isTrustAnchorFormat,
  resolveTrustAnchors,
  syncTrustBundleFile,
  trustAnchorNotes,
  trustAnchorsFromText,
  writeTrustBundleFileOnce,
  type TrustAnchorSelection,
  type TrustAnchors,
} from '@plat/trust';
import { klogLine, type CommandContext } from '../context.js';
import { CommandError, errorText } from '../errors.js';
import { FlagError } from '../flags.js';
import type { Io } from '../io.js';
import { formatColumns } from './table.js';
import { encodeOptionsOf, filterOf, targetsOf } from './trust-formats.js';

/** The selection of NAME, or of --signer with -l (--signer alone passes `{}`: all of the signer's bundles). */
export function selectionOf(ctx: CommandContext, allowFile = false): TrustAnchorSelection | undefined {
  const f = ctx.flags;
  const usageOf = ctx.command;
  const [name, ...extra] = f.args;
  const signer = f.str('signer');
  const file = allowFile ? f.str('filename') : '';
  if (extra.length) throw new CommandError(`only one ClusterTrustBundle NAME may be given, got ${f.args.length}`, { usageOf });
  if (file && (name !== undefined || signer)) throw new CommandError('-f cannot be combined with NAME or --signer', { usageOf });
  if (name !== undefined && signer) throw new CommandError('NAME cannot be provided when --signer is specified', { usageOf });
  if (f.changed('selector') && !signer) throw new CommandError('-l/--selector can only be used with --signer', { usageOf });
  if (file) return undefined;
  if (name !== undefined) return { name };
  if (signer) return { signerName: signer, labelSelector: parseToLabelSelectorObject(f.str('selector')) };
  throw new CommandError(`you must specify a ClusterTrustBundle NAME${allowFile ? ', --signer or -f' : ' or --signer'}`, { usageOf });
}

function outputFormat(ctx: CommandContext): '' | 'json' | 'yaml' {
  const o = ctx.flags.str('output');
  if (o === '' || o === 'json' || o === 'yaml') return o;
  throw new CommandError(`unable to match a printer suitable for the output format "${o}", allowed formats are: json,yaml`);
}

type TrustAnchor = TrustAnchors['anchors'][number];

function anchorJson(a: TrustAnchor, notes?: string[]) {
  return {
    subject: a.subject,
    issuer: a.issuer,
    sha256: a.sha256,
    notBefore: rfc3339(a.notBefore),
    notAfter: rfc3339(a.notAfter),
    selfSigned: a.selfSigned,
    ca: a.ca,
    ...(notes ? { notes } : {}),
  };
}

function print(ctx: CommandContext, format: 'json' | 'yaml', doc: unknown): void {
  ctx.io.stdout(format === 'json' ? `${goJson(doc, 4, false)}\n` : goYaml(doc, false));
}

/** `clientctl trust inspect`: one row per anchor, and `--fail-within` for cron and CI. */
export async function runTrustInspect(ctx: CommandContext): Promise<void> {
  const format = outputFormat(ctx);
  const failWithin = ctx.flags.str('fail-within');
  let withinMs: number;
  try {
    withinMs = parseDuration(failWithin);
  } catch {
    throw new FlagError(`invalid argument "${failWithin}" for "--fail-within" flag: must not be negative`);
  }
  const timeline = ctx.flags.bool('timeline');
  if (timeline && format) throw new CommandError('--timeline cannot be combined with -o/--output', { usageOf: ctx.command });
  const width = ctx.flags.int('width');
  if (width < 0) throw new FlagError(`invalid argument "${width}" for "--width" flag: must not be negative`);
  const sel = selectionOf(ctx, true);
  let anchors: TrustAnchors;
  if (sel) {
    anchors = await resolveTrustAnchors(ctx.rest(), sel);
  } else {
    const file = ctx.flags.str('filename');
    let text: string;
    try {
      text = file === '-' ? await ctx.io.readStdin() : readFileSync(file, 'utf8');
    } catch (err) {
      // kubectl's words for a missing -f path.
      throw new CommandError((err as NodeJS.ErrnoException).code === 'ENOENT' ? `the path "${file}" does not exist` : (err as Error).message);
    }
    const read = trustAnchorsFromText(text, file === '-' ? 'STDIN' : file);
    for (const p of read.problems) ctx.io.stderr(`Warning: ${file === '-' ? 'STDIN' : file}: ${p}\n`);
    anchors = read.anchors;
  }
  const now = Date.now();
  if (timeline) {
    const terminal = ctx.io.terminal;
    ctx.io.stdout(
      renderExpiryTimeline(anchors.anchors, { width: width || terminal?.columns || 80, now, soonMs: withinMs, color: terminal !== undefined && !ctx.io.env.NO_COLOR }),
    );
  } else if (format) {
    print(ctx, format, { digest: anchors.digest, sources: anchors.sources, anchors: anchors.anchors.map((a) => anchorJson(a, trustAnchorNotes(a, now))) });
  } else {
    const rows = anchors.anchors.map((a) => {
      const notes = trustAnchorNotes(a, now);
      return [a.subject, a.sha256.slice(0, 16), rfc3339(a.notBefore), rfc3339(a.notAfter), humanDuration(a.notAfter.getTime() - now), notes.length ? notes.join(',') : '<none>'];
    });
    if (!ctx.flags.bool('no-headers')) rows.unshift(['SUBJECT', 'SHA256', 'NOT-BEFORE', 'NOT-AFTER', 'EXPIRES-IN', 'NOTES']);
    ctx.io.stdout(formatColumns(rows));
  }
  if (withinMs > 0) {
    const expiring = anchorsExpiringWithin(anchors.anchors, withinMs, now);
    if (expiring.length) {
      const lines = expiring.map((a) => {
        const left = a.notAfter.getTime() - now;
        return `  ${a.subject} (sha256 ${a.sha256.slice(0, 16)}): not after ${rfc3339(a.notAfter)} (${left < 0 ? `expired ${humanDuration(-left)} ago` : `in ${humanDuration(left)}`})`;
      });
      const n = expiring.length;
      throw new CommandError(`${n} trust anchor${n === 1 ? '' : 's'} expire${n === 1 ? 's' : ''} within ${failWithin}:\n${lines.join('\n')}`, { exitCode: 1 });
    }
  }
}

/**
 * `clientctl trust resolve`: the canonical PEM (or a truststore or SPIFFE bundle with -o), or with
 * -o json|yaml the digest, anchors and sources too; after the consumer's filter.
 */
export async function runTrustResolve(ctx: CommandContext): Promise<void> {
  const o = ctx.flags.str('output') || 'pem';
  if (!isTrustAnchorFormat(o) && o !== 'json' && o !== 'yaml') {
    throw new CommandError(`unable to match a printer suitable for the output format "${o}", allowed formats are: jks,json,pem,pkcs12,spiffe,yaml`);
  }
  const options = encodeOptionsOf(ctx);
  const filtered = filterTrustAnchors(await resolveTrustAnchors(ctx.rest(), selectionOf(ctx)!), filterOf(ctx));
  for (const w of filtered.warnings) ctx.io.stderr(`Warning: ${w}\n`);
  const anchors = filtered.anchors;
  if (o === 'json' || o === 'yaml') {
    return print(ctx, o, { pem: anchors.pem, digest: anchors.digest, anchors: anchors.anchors.map((a) => anchorJson(a)), sources: anchors.sources });
  }
  if (o === 'pem') return void ctx.io.stdout(anchors.pem);
  ctx.io.stdoutBytes(await encodeTrustAnchors(anchors, o, options));
}

function summary(files: string[], anchors: TrustAnchors): string {
  const from = anchors.sources.map((s) => `${s.name}@${s.resourceVersion}`).join(', ') || 'no bundle';
  return `wrote ${files.join(', ')}: ${anchors.anchors.length} anchor${anchors.anchors.length === 1 ? '' : 's'}, digest ${anchors.digest.slice(0, 16)}, from ${from}`;
}

/**
 * Runs --exec through the shell with the files and digest in the environment; resolves with its
 * exit code. PLAT_TRUST_FILE is the first --to (as with one file), PLAT_TRUST_FILES every file
 * written this time, separated by ':'.
 */
function runExec(ctx: CommandContext, command: string, file: string, written: string[], anchors: TrustAnchors): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], {
      env: { ...ctx.io.env, PLAT_TRUST_FILE: file, PLAT_TRUST_FILES: written.join(':'), PLAT_TRUST_DIGEST: anchors.digest },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (c: Buffer) => ctx.io.stdout(c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => ctx.io.stderr(c.toString('utf8')));
    child.on('error', () => resolve(127));
    child.on('close', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

/** Aborts on SIGTERM or SIGINT (or the test harness' stop signal): sync and serve then exit 0. */
export function stopOnSignals(io: Io): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const stop = () => controller.abort();
  io.stop?.addEventListener('abort', stop, { once: true });
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return {
    signal: controller.signal,
    dispose() {
      io.stop?.removeEventListener('abort', stop);
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
    },
  };
}

/** `clientctl trust sync`: keeps each --to equal to the anchors in its --format, runs --exec after each change. */
export async function runTrustSync(ctx: CommandContext): Promise<void> {
  const f = ctx.flags;
  const targets = targetsOf(ctx);
  const sel = selectionOf(ctx)!;
  const filter = filterOf(ctx);
  const command = f.str('exec');
  const log = (severity: 'I' | 'W' | 'E', message: string) => ctx.io.stderr(klogLine(severity, 'trust.ts', message));
  const afterWrite = async (anchors: TrustAnchors, written: { file: string }[]) => {
    const files = written.map((t) => t.file);
    log('I', summary(files, anchors));
    if (!command) return;
    const code = await runExec(ctx, command, targets[0].file, files, anchors);
    if (code !== 0) log('E', `--exec ${JSON.stringify(command)} exited with code ${code}`);
  };
  const onWarning = (w: string) => log('W', w);
  const names = targets.map((t) => t.file).join(', ');
  if (f.bool('once')) {
    const { anchors, writtenTargets } = await writeTrustBundleFileOnce(ctx.rest(), sel, { targets, filter, onWarning });
    if (writtenTargets.length) await afterWrite(anchors, writtenTargets);
    else log('I', `${names} ${targets.length === 1 ? 'is' : 'are'} up to date (digest ${anchors.digest.slice(0, 16)})`);
    return;
  }
  const stop = stopOnSignals(ctx.io);
  try {
    await syncTrustBundleFile(ctx.rest(), sel, {
      targets,
      filter,
      onWarning,
      signal: stop.signal,
      onWrite: afterWrite,
      onError: (err, info) => {
        const text = errorText(err, ctx.command).trim().replace(/\n/g, ' ');
        if ((err as { code?: string }).code === 'NoMatch') log('W', `${text}; ${names} ${targets.length === 1 ? 'keeps its' : 'keep their'} anchors`);
        else log('W', info.retryInMs === undefined ? text : `${text} (retrying in ${(info.retryInMs / 1000).toFixed(1)}s)`);
      },
    });
  } finally {
    stop.dispose();
  }
  log('I', 'stopped');
}
