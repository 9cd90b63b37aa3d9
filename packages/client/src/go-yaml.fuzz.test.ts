import fc from 'fast-check';
import { stringify } from 'yaml';
import { decodeYaml } from '@plat/api-model/yaml';
import { convertYaml } from './go-yaml.js';
import { goYaml } from './object-printer.js';

/** Keys and strings that a YAML reader can take for something else when they are left plain. */
const special = ['.', '.inf', '-.inf', '.nan', '~', 'yes', 'no', 'on', 'y', '0x1F', '0o17', '0777', '1e3', '1_000', '.5', 'null', 'true', 'False', '-', '', ' ', '1:20', '2024-01-02', '<<', '#', '- a', 'a: b'];

const text = fc.oneof(fc.constantFrom(...special), fc.string({ maxLength: 12 }));
/**
 * The yaml library's YAML 1.1 writer leaves `0o17` (YAML 1.1 has no `0o`; go-yaml reads 15) and
 * the merge key `<<` plain, so its documents leave those two out.
 */
const text11 = fc.oneof(fc.constantFrom(...special.filter((s) => s !== '0o17' && s !== '<<')), fc.string({ maxLength: 12 }).filter((s) => !/^[-+]?0o/.test(s)));
/** A JSON document, as JSON.parse gives it: numbers exact in float64, so -0 is 0 and no NaN. */
const jsonOf = (text: fc.Arbitrary<string>) => fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e300, max: 1e300 }).filter((n) => !Number.isInteger(n) || Number.isSafeInteger(n)),
    text,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(text, tie('value'), { maxKeys: 4 }),
  ),
})).value.map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const json = jsonOf(text);
const json11 = jsonOf(text11);

// The client and the server read YAML as kubectl and kube-apiserver do (sigs.k8s.io/yaml, go-yaml
// v2, YAML 1.1): each must give back the JSON document that a writer of that dialect wrote, keys included.
describe('YAML round trip of JSON documents', () => {
  it('reads back what go-yaml v2 writes (the client printer) through the client path', () => {
    fc.assert(
      fc.property(json, (doc) => {
        expect(convertYaml(goYaml(doc))).toEqual({ value: doc });
      }),
      { numRuns: 300 },
    );
  });

  it('reads back YAML 1.1 in block and flow style through the client path', () => {
    fc.assert(
      fc.property(json11, fc.constantFrom('block', 'flow'), (doc, style) => {
        const written = stringify(doc, { version: '1.1', collectionStyle: style === 'flow' ? 'flow' : 'any', lineWidth: 0 });
        expect(convertYaml(written)).toEqual({ value: doc });
      }),
      { numRuns: 300 },
    );
  });

  it('reads back YAML 1.1 in block and flow style with the server\'s decoding options (packages/server request-body.ts)', () => {
    fc.assert(
      fc.property(json11, fc.constantFrom('block', 'flow'), (doc, style) => {
        const written = stringify(doc, { version: '1.1', collectionStyle: style === 'flow' ? 'flow' : 'any', lineWidth: 0 });
        expect(decodeYaml(written, { findDuplicates: true, beyondInt64: 'exact', goYaml: true }).value).toEqual(doc);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a FieldsV1 `.` key, which go-yaml v2 reads as a string', () => {
    expect(convertYaml('f:data:\n  .: {}\n  f:a: {}\n')).toEqual({ value: { 'f:data': { '.': {}, 'f:a': {} } } });
    expect(convertYaml('{.: 1, ._5: 2, .5: 3, 1e999: 4, 0o17: 5}')).toEqual({ value: { '.': 1, '._5': 2, '0.5': 3, '1e999': 4, '15': 5 } });
  });
});
