import { parseGoCsv } from './go-csv.js';
import { parseTokenFile } from './token-file.js';

describe('parseTokenFile (Kubernetes --token-auth-file format)', () => {
  it('reads token, user, uid and quoted comma-separated groups', () => {
    const { tokens, warnings } = parseTokenFile('t1,alice,uid-1,"devs,ops"\nt2,bob,uid-2\n', '/etc/tokens.csv');
    expect(tokens.get('t1')).toEqual({ username: 'alice', uid: 'uid-1', groups: ['devs', 'ops'] });
    expect(tokens.get('t2')).toEqual({ username: 'bob', uid: 'uid-2', groups: [] });
    expect(warnings).toEqual([]);
  });

  it('fails the whole file on a record with fewer than three columns', () => {
    expect(() => parseTokenFile('t1,alice,1\nt2,bob\n', 'tokens.csv')).toThrow(
      "token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 2",
    );
  });

  it('skips empty tokens and lets a duplicate replace the earlier record, with warnings', () => {
    const { tokens, warnings } = parseTokenFile(',nobody,0\nt,first,1\nt,second,2\n', 'f');
    expect(tokens.size).toBe(1);
    expect(tokens.get('t')?.username).toBe('second');
    expect(warnings.map((w) => w.message)).toEqual([
      "empty token has been found in token file 'f', record number '1'",
      "duplicate token has been found in token file 'f', record number '3'",
    ]);
  });

  it("reports Go's CSV parse errors with line and column", () => {
    expect(() => parseTokenFile('t1,al"ice,1\n', 'f')).toThrow('parse error on line 1, column 6: bare " in non-quoted-field');
    expect(() => parseTokenFile('t1,alice,1\nt2,"bob"x,2\n', 'f')).toThrow(
      'parse error on line 2, column 8: extraneous or missing " in quoted-field',
    );
    expect(() => parseTokenFile('t1,"alice\nmore', 'f')).toThrow(
      'record on line 1; parse error on line 2, column 5: extraneous or missing " in quoted-field',
    );
  });

  it('keeps spaces, skips blank lines and accepts CRLF and a missing final newline', () => {
    const { tokens } = parseTokenFile('\r\n t1 , alice ,1\r\n\r\nt2,bob,2', 'f');
    expect(tokens.get(' t1 ')?.username).toBe(' alice ');
    expect(tokens.get('t2')?.uid).toBe('2');
  });
});

describe('parseGoCsv', () => {
  it('handles escaped quotes and fields spanning lines', () => {
    expect(parseGoCsv('a,"b ""q""","c\nd"\n')).toEqual([['a', 'b "q"', 'c\nd']]);
  });
  it('keeps an empty last field', () => {
    expect(parseGoCsv('a,b,\n')).toEqual([['a', 'b', '']]);
  });
});
