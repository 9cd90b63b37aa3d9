import { FlagError } from './flags.js';
import { goQuote } from '@plat/api-model';

/** An error whose text is printed as is (already `error: ...` shaped or a kubectl sentence). */
export class CommandError extends Error {
  constructor(
    message: string,
    readonly options: { usageOf?: string; raw?: boolean; exitCode?: number } = {},
  ) {
    super(message);
    this.name = 'CommandError';
  }
}

interface StatusLike {
  reason?: string;
  message?: string;
  code?: number;
  details?: { kind?: string; name?: string; group?: string; causes?: { field?: string; message?: string }[] };
}

function statusOf(err: unknown): StatusLike | undefined {
  const e = err as { name?: string; status?: StatusLike };
  return e && e.name === 'StatusError' && e.status && typeof e.status === 'object' ? e.status : undefined;
}

/**
 * The text kubectl prints for an error (cmdutil.CheckErr / StandardErrorMessage). An aggregate
 * of one error is that error; of several, one line per error (kubectl's MultipleErrors): its
 * standard message, or its plain text without `error: `, a nested aggregate as `[a, b]`.
 */
export function errorText(err: unknown, command: string): string {
  if (err instanceof AggregateError && err.errors.length === 1) err = err.errors[0];
  if (err instanceof AggregateError) return (err.errors as unknown[]).map((e) => `${standardMessage(e) ?? (e as Error).message}\n`).join('');
  if (err instanceof FlagError) return `Error: ${err.message}\nSee 'clientctl ${command} --help' for usage.\n`;
  if (err instanceof CommandError) {
    const body = err.options.raw ? err.message : `error: ${err.message}`;
    return `${body}${err.options.usageOf ? `\nSee 'clientctl ${err.options.usageOf} -h' for help and examples` : ''}\n`;
  }
  const status = statusOf(err);
  if (status) {
    const msg = status.message ?? '';
    if (status.reason === 'Invalid') {
      // kubectl's checkErr for Invalid: "The <Kind> <name> is invalid" with the causes, one per line when several.
      const d = status.details;
      let s = 'The request is invalid';
      if (!d) return `${msg ? `${s}: ${msg}` : s}\n`;
      if (d.kind || d.name) s = `The ${d.kind ?? ''} ${goQuote(d.name ?? '')} is invalid`;
      else if (msg && !d.causes?.length) s += `: ${msg}`;
      if (!d.causes?.length) return `${s}\n`;
      const causes = d.causes.map((c) => `${c.field ?? ''}: ${c.message ?? ''}`);
      return `${s}: ${causes.length === 1 ? causes[0] : `\n* ${causes.join('\n* ')}`}\n`;
    }
    return `${standardMessage(err)}\n`;
  }
  const ce = err as { name?: string; code?: string; message?: string };
  if (ce && ce.name === 'ClientError') {
    if (ce.code === 'Connection') return `${ce.message}\n`;
    if (ce.code === 'ContextNotFound' && /^context was not found/.test(ce.message ?? '')) return `Error in configuration: ${ce.message}\n`;
    if (ce.code === 'Timeout') return `Error from server (Timeout): ${ce.message}\n`;
  }
  // kubectl's fatal(): `error: ` unless the text has it, a newline unless it ends with one.
  const msg = err instanceof Error ? err.message : String(err);
  return `${msg.startsWith('error: ') ? '' : 'error: '}${msg}${msg.endsWith('\n') ? '' : '\n'}`;
}

/** StandardErrorMessage: the text of a server error, undefined for others. */
function standardMessage(err: unknown): string | undefined {
  const status = statusOf(err);
  if (!status) return undefined;
  const msg = status.message ?? '';
  if (status.reason === 'Unauthorized') return `error: You must be logged in to the server (${msg})`;
  return status.reason ? `Error from server (${status.reason}): ${msg}` : `Error from server: ${msg}`;
}

/** kubectl's AddSourceToErr: names the input file in an error about one of its objects. */
export function addSourceToErr(verb: string, source: string, err: unknown): unknown {
  if (!source) return err;
  const e = err as { name?: string; status?: { message?: string } };
  if (e && e.name === 'StatusError' && e.status) {
    const copy = Object.create(Object.getPrototypeOf(err) as object) as { name: string; status: object; message: string };
    Object.assign(copy, err);
    copy.status = { ...e.status, message: `error when ${verb} ${goQuote(source)}: ${e.status.message ?? ''}` };
    copy.message = (copy.status as { message: string }).message;
    return copy;
  }
  return new CommandError(`error when ${verb} ${goQuote(source)}: ${err instanceof Error ? err.message : String(err)}`);
}
