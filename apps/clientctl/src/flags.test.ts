import { FlagError, Flags, parseFlags, type FlagSpec } from './flags.js';

const specs: FlagSpec[] = [
  { name: 'output', short: 'o', type: 'string', usage: '' },
  { name: 'filename', short: 'f', type: 'stringSlice', usage: '' },
  { name: 'as-group', type: 'stringArray', usage: '' },
  { name: 'recursive', short: 'R', type: 'bool', usage: '' },
  { name: 'local', type: 'bool', usage: '' },
  { name: 'allow', type: 'bool', default: true, usage: '' },
  { name: 'dry-run', type: 'string', default: 'none', bareValue: 'unchanged', usage: '' },
  { name: 'seconds', type: 'int', default: 300, usage: '' },
  { name: 'buffer', type: 'duration', default: '1m0s', usage: '' },
  { name: 'help', short: 'h', type: 'bool', usage: '' },
];

const parse = (...argv: string[]) => new Flags(parseFlags(argv, specs));

describe('parseFlags (pflag rules)', () => {
  it('reads long and short forms with and without =, and keeps positionals in order', () => {
    const f = parse('patch', '-o', 'json', 'ctb', '--local', 'name', '-fa.yaml', '--filename=b.yaml,c.yaml', '-f=d.yaml');
    expect(f.args).toEqual(['patch', 'ctb', 'name']);
    expect(f.str('output')).toBe('json');
    expect(f.bool('local')).toBe(true);
    expect(f.list('filename')).toEqual(['a.yaml', 'b.yaml', 'c.yaml', 'd.yaml']);
  });

  it('groups short booleans and ends flags at --', () => {
    const f = parse('-Rh', '--', '-o', 'x');
    expect(f.bool('recursive')).toBe(true);
    expect(f.bool('help')).toBe(true);
    expect(f.args).toEqual(['-o', 'x']);
    expect(f.str('output')).toBe('');
  });

  it('gives the bare value to flags that have one, which then take values only with =', () => {
    expect(parse('--dry-run').str('dry-run')).toBe('unchanged');
    const f = parse('--dry-run', 'server');
    expect(f.str('dry-run')).toBe('unchanged');
    expect(f.args).toEqual(['server']);
    expect(parse('--dry-run=server').str('dry-run')).toBe('server');
    expect(parse().str('dry-run')).toBe('none');
  });

  it('parses booleans, ints, durations and repeated arrays, keeping defaults', () => {
    expect(parse('--allow=false').bool('allow')).toBe(false);
    expect(parse().bool('allow')).toBe(true);
    expect(parse('--local=T').bool('local')).toBe(true);
    expect(parse('--seconds', '12').int('seconds')).toBe(12);
    expect(parse().int('seconds')).toBe(300);
    expect(parse('--buffer=1h30m').str('buffer')).toBe('1h30m');
    expect(parse('--as-group', 'a,b', '--as-group=c').list('as-group')).toEqual(['a,b', 'c']);
    expect(parse('--seconds=1').changed('seconds')).toBe(true);
    expect(parse().changed('seconds')).toBe(false);
  });

  it('fails with pflag\'s messages', () => {
    const err = (...argv: string[]) => {
      try {
        parseFlags(argv, specs);
      } catch (e) {
        expect(e).toBeInstanceOf(FlagError);
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(err('--nope')).toBe('unknown flag: --nope');
    expect(err('-z')).toBe("unknown shorthand flag: 'z' in -z");
    expect(err('-Rz')).toBe("unknown shorthand flag: 'z' in -Rz");
    expect(err('--output')).toBe('flag needs an argument: --output');
    expect(err('-o')).toBe("flag needs an argument: 'o' in -o");
    expect(err('--local=maybe')).toBe('invalid argument "maybe" for "--local" flag: strconv.ParseBool: parsing "maybe": invalid syntax');
    expect(err('--seconds=x')).toBe('invalid argument "x" for "--seconds" flag: strconv.ParseInt: parsing "x": invalid syntax');
    expect(err('--buffer=soon')).toBe('invalid argument "soon" for "--buffer" flag: time: invalid duration "soon"');
  });
});
