import { goQuote, parseGoDuration } from '@plat/api-model';

/**
 * Command-line flags with spf13/pflag's rules, so errors read as kubectl's do: `--f=v`, `--f v`,
 * `-f v`, `-fv`, `-f=v`, grouped short booleans, `--` ending flags, flags anywhere among the
 * arguments, and flags with a value for the bare form (`--dry-run` means `unchanged`).
 */
export type FlagType = 'bool' | 'string' | 'int' | 'stringSlice' | 'stringArray' | 'duration';

export interface FlagSpec {
  name: string;
  short?: string;
  type: FlagType;
  default?: string | boolean | number | string[];
  /** pflag's NoOptDefVal: the value of the bare flag; then a value must be given with `=`. */
  bareValue?: string;
  usage: string;
  hidden?: boolean;
}

export type FlagValue = string | boolean | number | string[];

export interface ParsedFlags {
  values: Map<string, FlagValue>;
  /** Names given on the command line. */
  changed: Set<string>;
  args: string[];
}

export class FlagError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FlagError';
  }
}

function parseBool(name: string, raw: string): boolean {
  if (/^(1|t|T|TRUE|true|True)$/.test(raw)) return true;
  if (/^(0|f|F|FALSE|false|False)$/.test(raw)) return false;
  throw new FlagError(`invalid argument "${raw}" for "--${name}" flag: strconv.ParseBool: parsing "${raw}": invalid syntax`);
}

function splitCsv(raw: string): string[] {
  if (raw === '') return [];
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '"') quoted = !quoted;
    else if (c === ',' && !quoted) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

export function defaultValue(spec: FlagSpec): FlagValue {
  if (spec.default !== undefined) return spec.default;
  switch (spec.type) {
    case 'bool': return false;
    case 'int': return 0;
    case 'stringSlice':
    case 'stringArray': return [];
    default: return '';
  }
}

function setValue(parsed: ParsedFlags, spec: FlagSpec, raw: string, display: string): void {
  let value: FlagValue;
  switch (spec.type) {
    case 'bool':
      value = parseBool(spec.name, raw);
      break;
    case 'int':
      if (!/^[-+]?\d+$/.test(raw)) throw new FlagError(`invalid argument ${goQuote(raw)} for "${display}" flag: strconv.ParseInt: parsing ${goQuote(raw)}: invalid syntax`);
      value = Number(raw);
      break;
    case 'duration': {
      const parsed = parseGoDuration(raw);
      if (!parsed.ok) throw new FlagError(`invalid argument ${goQuote(raw)} for "${display}" flag: ${parsed.error}`);
      value = raw;
      break;
    }
    case 'stringSlice': {
      const prev = parsed.changed.has(spec.name) ? (parsed.values.get(spec.name) as string[]) : [];
      value = [...prev, ...splitCsv(raw)];
      break;
    }
    case 'stringArray': {
      const prev = parsed.changed.has(spec.name) ? (parsed.values.get(spec.name) as string[]) : [];
      value = [...prev, raw];
      break;
    }
    default:
      value = raw;
  }
  parsed.values.set(spec.name, value);
  parsed.changed.add(spec.name);
}

/** Parses `argv` against `specs`; positional arguments keep their order. */
export function parseFlags(argv: readonly string[], specs: readonly FlagSpec[]): ParsedFlags {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const byShort = new Map(specs.filter((s) => s.short).map((s) => [s.short!, s]));
  const parsed: ParsedFlags = { values: new Map(specs.map((s) => [s.name, defaultValue(s)])), changed: new Set(), args: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      parsed.args.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith('--') && a.length > 2) {
      const eq = a.indexOf('=');
      const name = eq >= 0 ? a.slice(2, eq) : a.slice(2);
      const spec = byName.get(name);
      if (!spec) throw new FlagError(`unknown flag: --${name}`);
      if (eq >= 0) setValue(parsed, spec, a.slice(eq + 1), `--${name}`);
      else if (spec.type === 'bool') setValue(parsed, spec, 'true', `--${name}`);
      else if (spec.bareValue !== undefined) setValue(parsed, spec, spec.bareValue, `--${name}`);
      else if (i + 1 < argv.length) setValue(parsed, spec, argv[++i], `--${name}`);
      else throw new FlagError(`flag needs an argument: --${name}`);
    } else if (a.startsWith('-') && a.length > 1) {
      let j = 1;
      while (j < a.length) {
        const c = a[j];
        const spec = byShort.get(c);
        if (!spec) throw new FlagError(`unknown shorthand flag: '${c}' in ${a}`);
        const display = `-${c}, --${spec.name}`;
        if (a[j + 1] === '=') {
          setValue(parsed, spec, a.slice(j + 2), display);
          break;
        }
        if (spec.type === 'bool') {
          setValue(parsed, spec, 'true', display);
          j++;
          continue;
        }
        if (spec.bareValue !== undefined) {
          setValue(parsed, spec, j + 1 < a.length ? a.slice(j + 1) : spec.bareValue, display);
          break;
        }
        if (j + 1 < a.length) setValue(parsed, spec, a.slice(j + 1), display);
        else if (i + 1 < argv.length) setValue(parsed, spec, argv[++i], display);
        else throw new FlagError(`flag needs an argument: '${c}' in -${c}`);
        break;
      }
    } else parsed.args.push(a);
  }
  return parsed;
}

/** Typed accessors over parsed values. */
export class Flags {
  constructor(private readonly parsed: ParsedFlags) {}
  get args(): string[] {
    return this.parsed.args;
  }
  changed(name: string): boolean {
    return this.parsed.changed.has(name);
  }
  str(name: string): string {
    return String(this.parsed.values.get(name) ?? '');
  }
  bool(name: string): boolean {
    return this.parsed.values.get(name) === true;
  }
  int(name: string): number {
    return Number(this.parsed.values.get(name) ?? 0);
  }
  list(name: string): string[] {
    const v = this.parsed.values.get(name);
    return Array.isArray(v) ? v : [];
  }
}

/** Help lines for a flag table, in kubectl's layout. */
export function flagUsage(specs: readonly FlagSpec[]): string {
  const lines: string[] = [];
  for (const s of specs.filter((x) => !x.hidden).sort((a, b) => a.name.localeCompare(b.name))) {
    const head = s.short ? `-${s.short}, --${s.name}` : `--${s.name}`;
    const def = defaultValue(s);
    const defText =
      s.type === 'bool' ? (def === true ? 'true' : '') : Array.isArray(def) ? (def.length ? `[${def.join(',')}]` : '[]') : String(def);
    const typeText = s.type === 'bool' ? '' : s.type === 'stringSlice' || s.type === 'stringArray' ? '[]' : '';
    lines.push(`    ${head}=${s.type === 'bool' ? (def === true ? 'true' : 'false') : `${typeText}'${defText}'`}:`);
    lines.push(`\t${s.usage}`);
    lines.push('');
  }
  return lines.join('\n');
}
