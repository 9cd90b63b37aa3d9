export type LoggingFormat = 'text' | 'json';

/** Matches @plat/server's ServerLogger hook (info with a verbosity, error, enabled). */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>, verbosity?: number): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** Whether info lines of this verbosity are written (the server skips building them otherwise). */
  enabled(verbosity: number): boolean;
}

function textValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof Error) return JSON.stringify(v.message);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) return String(v);
  return JSON.stringify(v);
}

function klogHeader(severity: 'I' | 'E', now: Date): string {
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return (
    `${severity}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())} ` +
    `${pad(now.getUTCHours())}:${pad(now.getUTCMinutes())}:${pad(now.getUTCSeconds())}.${pad(now.getUTCMilliseconds(), 3)}000 ` +
    `${String(process.pid).padStart(7)}`
  );
}

/**
 * Structured logs in the two formats of Kubernetes components: klog text
 * (`I1122 05:50:10.123000   4242] "message" key="value"`) or JSON lines
 * (`{"ts":..,"v":0,"msg":"..",...}`), to stderr. Lines above `verbosity` are dropped.
 */
export function createLogger(opts: {
  format: LoggingFormat;
  verbosity: number;
  write?: (line: string) => void;
  now?: () => Date;
}): Logger {
  const write = opts.write ?? ((line: string) => process.stderr.write(line));
  const now = opts.now ?? (() => new Date());
  const emit = (severity: 'I' | 'E', message: string, fields: Record<string, unknown>, v: number) => {
    const at = now();
    if (opts.format === 'json') {
      const entry: Record<string, unknown> = { ts: at.getTime() / 1000, v, msg: message };
      for (const [k, val] of Object.entries(fields)) entry[k] = val instanceof Error ? val.message : val;
      if (severity === 'E') entry.err = entry.err ?? message;
      write(`${JSON.stringify(entry)}\n`);
      return;
    }
    const pairs = Object.entries(fields).map(([k, val]) => `${k}=${textValue(val)}`);
    write(`${klogHeader(severity, at)}] ${[JSON.stringify(message), ...pairs].join(' ')}\n`);
  };
  return {
    info(message, fields = {}, verbosity = 0) {
      if (verbosity > opts.verbosity) return;
      emit('I', message, fields, verbosity);
    },
    error(message, fields = {}) {
      emit('E', message, fields, 0);
    },
    enabled: (verbosity) => verbosity <= opts.verbosity,
  };
}
