import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { goJsonSyntaxError, scanJsonStream } from './go-json-syntax.js';

const kubectl = '/usr/bin/kubectl';
const haveKubectl = existsSync(kubectl);
if (!haveKubectl) console.warn(`go-json-syntax: the comparison with kubectl is skipped, ${kubectl} is not installed`);

// Texts starting with `{` reach Go's json.Unmarshal as they are when kubectl reads them as a JSON
// patch, so `kubectl patch --local --type json` prints Go's own syntax error for each.
const malformed = [
  '{data: 1}', '{"a":', '{"a": tru}', '{"a" 1}', '{"a":1 "b":2}', '{"a":[1 2]}', '{"a":"\u0001"}', '{"a":"\\x"}', '{"a":"\\u12g4"}',
  '{"a":-x}', '{"a":1.}', '{"a":1e}', '{"a":1e+}', '{"a":nul}', '{"a":fals}', '{} x', '{}}', '{"a":1,}', '{,}', "{'a':1}", '{"a":\u00e9}',
  '{"a":01}', '{"a":[}', '{', '{"a":"x',
];

describe('goJsonSyntaxError', () => {
  it('accepts JSON', () => {
    for (const ok of ['{}', ' {"a":[1,-2.5e+3,true,false,null,"\\u00e9\\n"]} ', '{"a":{"b":{}}}\n']) expect(goJsonSyntaxError(ok)).toBeUndefined();
  });

  it('words errors as Go does', () => {
    expect(goJsonSyntaxError('{data: 1}')).toBe("invalid character 'd' looking for beginning of object key string");
    expect(goJsonSyntaxError('{"a":')).toBe('unexpected end of JSON input');
    expect(goJsonSyntaxError('{"a": tru}')).toBe("invalid character '}' in literal true (expecting 'e')");
    expect(goJsonSyntaxError("{'a':1}")).toBe("invalid character '\\'' looking for beginning of object key string");
    expect(goJsonSyntaxError('{} x')).toBe("invalid character 'x' after top-level value");
    expect(goJsonSyntaxError('{"a":"\u0001"}')).toBe("invalid character '\\x01' in string literal");
  });

  it('stops at Go\'s nesting limit', () => {
    expect(goJsonSyntaxError('['.repeat(10001))).toBe('exceeded max depth');
  });

  it('agrees with JSON.parse on what is JSON (fuzz)', () => {
    const jsonish = fc.stringMatching(/^[\s{}[\]:,"\\a-z0-9.eE+-]{0,30}$/);
    fc.assert(
      fc.property(fc.oneof(jsonish, fc.json(), fc.string()), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        expect(goJsonSyntaxError(text) === undefined).toBe(valid);
      }),
      { numRuns: 2000 },
    );
  });

  (haveKubectl ? it : it.skip)('prints what kubectl prints for the same texts', () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'go-json-'));
    const cm = path.join(tmp, 'cm.json');
    writeFileSync(cm, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}');
    for (const text of malformed) {
      const r = spawnSync(kubectl, ['patch', '--local', '-f', cm, '--type', 'json', '-p', text], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: tmp, KUBECONFIG: path.join(tmp, 'none') } });
      expect({ text, stderr: `error: ${goJsonSyntaxError(text)}\n` }).toEqual({ text, stderr: r.stderr });
    }
  });
});

describe('scanJsonStream', () => {
  it('splits a stream of values as json.Decoder reads them', () => {
    expect(scanJsonStream('{"a":1}\n{"b":2} [3] 4 "x"')).toEqual({ values: ['{"a":1}', '{"b":2}', '[3]', '4', '"x"'] });
    expect(scanJsonStream('{"a":1}{"b"')).toEqual({ values: ['{"a":1}'], error: 'unexpected EOF' });
    expect(scanJsonStream('{"a":1} {"b": tru}')).toEqual({ values: ['{"a":1}'], error: "json: offset 18: invalid character '}' in literal true (expecting 'e')" });
    expect(scanJsonStream('  \n')).toEqual({ values: [] });
  });
});
