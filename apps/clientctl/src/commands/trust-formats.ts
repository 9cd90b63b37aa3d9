import { readFileSync } from 'node:fs';
import { parseDuration } from '@plat/client';
import { isTrustAnchorFormat, trustAnchorFormats, type EncodeTrustAnchorsOptions, type TrustAnchorFilter, type TrustAnchorsFileTarget } from '@plat/trust';
import type { CommandContext } from '../context.js';
import { CommandError } from '../errors.js';
import { FlagError } from '../flags.js';

// Flags shared by `trust resolve`, `trust sync` and `trust serve`: formats, the keystore password
// and the consumer's filter. Reading them is wiring; what they mean is @plat/trust's.

/** A duration flag in milliseconds. */
function durationMs(ctx: CommandContext, name: string): number {
  const raw = ctx.flags.str(name);
  try {
    return parseDuration(raw);
  } catch {
    throw new FlagError(`invalid argument "${raw}" for "--${name}" flag: must not be negative`);
  }
}

/** The keystore password of --password-file (its first line, as keytool's -storepass:file), or undefined. */
function passwordOf(ctx: CommandContext): string | undefined {
  const file = ctx.flags.str('password-file');
  if (!file) return undefined;
  try {
    return readFileSync(file, 'utf8').split(/\r?\n/)[0];
  } catch (err) {
    throw new CommandError((err as NodeJS.ErrnoException).code === 'ENOENT' ? `the path "${file}" does not exist` : (err as Error).message);
  }
}

/** Encoding options from --password-file, --legacy-pkcs12 and --spiffe-refresh-hint. */
export function encodeOptionsOf(ctx: CommandContext): EncodeTrustAnchorsOptions {
  const password = passwordOf(ctx);
  const hintMs = durationMs(ctx, 'spiffe-refresh-hint');
  return {
    ...(password === undefined ? {} : { password }),
    ...(ctx.flags.bool('legacy-pkcs12') ? { legacy: true } : {}),
    spiffeRefreshHintSeconds: Math.max(1, Math.round(hintMs / 1000)),
  };
}

/** The consumer's filter from --exclude-expired and --min-remaining. */
export function filterOf(ctx: CommandContext): TrustAnchorFilter {
  return { excludeExpired: ctx.flags.bool('exclude-expired'), minRemainingMs: durationMs(ctx, 'min-remaining') };
}

export function formatOf(value: string, flag: string): (typeof trustAnchorFormats)[number] {
  if (isTrustAnchorFormat(value)) return value;
  throw new CommandError(`invalid argument "${value}" for "${flag}" flag: must be one of: ${trustAnchorFormats.join(', ')}`);
}

/** `--to` files paired in order with `--format`s; without any --format every file is PEM. */
export function targetsOf(ctx: CommandContext): TrustAnchorsFileTarget[] {
  const files = ctx.flags.list('to');
  const formats = ctx.flags.list('format');
  if (files.length === 0) throw new FlagError('required flag(s) "to" not set');
  if (formats.length > 0 && formats.length !== files.length) {
    throw new CommandError(`each --to needs its --format (in the same order): got ${formats.length} --format and ${files.length} --to`, { usageOf: ctx.command });
  }
  const options = encodeOptionsOf(ctx);
  return files.map((file, i) => ({ file, format: formats.length ? formatOf(formats[i], '--format') : 'pem', ...options }));
}
