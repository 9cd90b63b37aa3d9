import { decodePemBase64, encodePem, readPemEntries } from './pem.js';

const hello = Buffer.from('hello, PEM world');
const block = (type: string, body = hello.toString('base64')) => `-----BEGIN ${type}-----\n${body}\n-----END ${type}-----\n`;

function blocks(input: string) {
  return readPemEntries(input).map((e) => (e.kind === 'block' ? { type: e.type, bytes: Buffer.from(e.bytes).toString() } : { malformed: e.reason }));
}

describe('readPemEntries', () => {
  it('reads type, headers and bytes of each block', () => {
    const input = '-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info : AES-128-CBC,00\n\n' +
      hello.toString('base64') + '\n-----END RSA PRIVATE KEY-----\n';
    const [entry] = readPemEntries(input);
    expect(entry.kind).toBe('block');
    if (entry.kind !== 'block') return;
    expect(entry.type).toBe('RSA PRIVATE KEY');
    expect([...entry.headers]).toEqual([['Proc-Type', '4,ENCRYPTED'], ['DEK-Info', 'AES-128-CBC,00']]);
    expect(Buffer.from(entry.bytes).toString()).toBe('hello, PEM world');
  });

  it('finds nothing in text without blocks', () => {
    expect(readPemEntries('')).toEqual([]);
    expect(readPemEntries('just words\n-----END CERTIFICATE-----\n')).toEqual([]);
  });

  it('only accepts BEGIN at the start of a line, as Go does', () => {
    expect(blocks('x' + block('A'))).toEqual([]);
    expect(blocks('x\n' + block('A'))).toEqual([{ type: 'A', bytes: 'hello, PEM world' }]);
  });

  it('skips text between and after blocks', () => {
    expect(blocks(`intro\n${block('A')}middle: text\n${block('B')}tail`)).toEqual([
      { type: 'A', bytes: 'hello, PEM world' },
      { type: 'B', bytes: 'hello, PEM world' },
    ]);
  });

  it('accepts an empty block whose END line follows BEGIN directly', () => {
    expect(blocks('-----BEGIN EMPTY-----\n-----END EMPTY-----\n')).toEqual([{ type: 'EMPTY', bytes: '' }]);
  });

  it('ignores spaces, tabs and CR inside the base64 body', () => {
    const b64 = hello.toString('base64');
    const body = ` ${b64.slice(0, 5)}\t${b64.slice(5, 10)}\r\n${b64.slice(10)}  `;
    expect(blocks(block('A', body))).toEqual([{ type: 'A', bytes: 'hello, PEM world' }]);
  });

  it('reports a BEGIN line without closing dashes and keeps scanning', () => {
    expect(blocks('-----BEGIN A\n' + block('B'))).toEqual([{ malformed: 'BEGIN line does not end with "-----"' }, { type: 'B', bytes: 'hello, PEM world' }]);
  });

  it('reports text after the END marker on the same line', () => {
    expect(blocks(block('A').replace('-----END A-----', '-----END A----- junk'))).toEqual([{ malformed: 'END line does not match the BEGIN line' }]);
  });

  it('reports a block cut off inside its headers and stops there, as Go does', () => {
    expect(blocks('-----BEGIN A-----\nKey: value')).toEqual([{ malformed: 'no END line' }]);
  });

  it('reports invalid base64: bad characters, missing padding, data after padding', () => {
    expect(blocks(block('A', 'aGVsbG8*'))).toEqual([{ malformed: 'invalid base64 data' }]);
    expect(blocks(block('A', 'aGVsbG8'))).toEqual([{ malformed: 'invalid base64 data' }]);
    expect(blocks(block('A', 'aGVsbA==aGVs'))).toEqual([{ malformed: 'invalid base64 data' }]);
  });

  it('resumes after a malformed block exactly where Go resumes', () => {
    // The first block's END line is missing, so the search for it finds the second block's END;
    // the body then spans a BEGIN line, fails base64, and Go retries from the second BEGIN.
    const input = '-----BEGIN A-----\naGVsbG8=\n' + block('A');
    expect(blocks(input)).toEqual([{ malformed: 'invalid base64 data' }, { type: 'A', bytes: 'hello, PEM world' }]);
  });

  it('numbers entries in input order, malformed entries included', () => {
    const entries = readPemEntries(block('A') + block('B', '!!') + block('C'));
    expect(entries.map((e) => [e.index, e.kind, e.type])).toEqual([[0, 'block', 'A'], [1, 'malformed', 'B'], [2, 'block', 'C']]);
  });

  it('reads thousands of BEGIN lines without an END in linear time, each one malformed', () => {
    const line = '-----BEGIN CERTIFICATE-----\n';
    const time = (n: number) => {
      const input = line.repeat(n) + block('CERTIFICATE');
      const started = performance.now();
      const entries = readPemEntries(input);
      const ms = performance.now() - started;
      expect(entries).toHaveLength(n + 1);
      return ms;
    };
    time(2_000); // warm up
    // The fastest of three runs each: a loaded machine's pauses only ever add time to one run.
    const fastest = (n: number) => Math.min(time(n), time(n), time(n));
    const small = fastest(4_000);
    const large = fastest(36_000); // 957 KiB
    // Nine times the input: well under the 81 times a quadratic scan takes.
    expect(large).toBeLessThan(Math.max(small * 30, 300));
    // The END found for the many BEGINs is the one Go's pem.Decode finds: the last block decodes.
    expect(blocks(line.repeat(3) + block('CERTIFICATE')).at(-1)).toEqual({ type: 'CERTIFICATE', bytes: 'hello, PEM world' });
  });
});

describe('decodePemBase64', () => {
  it.each([
    ['', ''],
    ['aGk=', 'hi'],
    ['aGVs\nbG8=', 'hello'],
    ['aGVs\nbG8=\n', 'hello'],
    ['aGVs\r\nbG8=', 'hello'],
    ['aG\nk=', 'hi'],
    ['aGVsbA=\n=', 'hell'],
  ])('decodes %j', (input, expected) => {
    expect(Buffer.from(decodePemBase64(input)!).toString()).toBe(expected);
  });

  it.each(['a', 'aGk', '====', 'a===', 'aG=k', 'aGk=aGk=', 'aGk\u00e9', 'aGk-', 'aGk\n', 'aGk=\n\n=', 'aGk==\n', 'aG=\nk'])('rejects %j', (input) => {
    expect(decodePemBase64(input)).toBeUndefined();
  });
});

describe('encodePem', () => {
  it('wraps at 64 columns and round-trips through the reader', () => {
    const bytes = new Uint8Array(100).map((_, i) => i);
    const pem = encodePem('CERTIFICATE', bytes);
    expect(pem.split('\n').map((l) => l.length)).toEqual([27, 64, 64, 8, 25, 0]);
    const [entry] = readPemEntries(pem);
    expect(entry.kind === 'block' && Buffer.from(entry.bytes).equals(Buffer.from(bytes))).toBe(true);
  });
});
