import * as asn1js from 'asn1js';
import { parseAsn1Time } from './asn1-time.js';

const node = (tag: number, text: string) => asn1js.fromBER(Uint8Array.from([tag, text.length, ...Buffer.from(text, 'latin1')])).result;
const utc = (text: string) => parseAsn1Time(node(0x17, text));
const generalized = (text: string) => parseAsn1Time(node(0x18, text));

describe('parseAsn1Time (Go\'s cryptobyte rules)', () => {
  it('reads UTCTime with seconds or minutes, Z or an offset, and the RFC 5280 century', () => {
    expect(utc('261125205059Z').toISOString()).toBe('2026-11-25T20:50:59.000Z');
    expect(utc('2611252050Z').toISOString()).toBe('2026-11-25T20:50:00.000Z');
    expect(utc('500101000000Z').toISOString()).toBe('1950-01-01T00:00:00.000Z');
    expect(utc('491231235959Z').toISOString()).toBe('2049-12-31T23:59:59.000Z');
    expect(utc('261125205059+0130').toISOString()).toBe('2026-11-25T19:20:59.000Z');
  });

  it('reads GeneralizedTime with an optional fraction', () => {
    expect(generalized('20501231235959Z').toISOString()).toBe('2050-12-31T23:59:59.000Z');
    expect(generalized('20261125205059.25Z').toISOString()).toBe('2026-11-25T20:50:59.250Z');
  });

  it.each([
    ['UTCTime', '26112520505\u001dZ'],
    ['UTCTime', '261125205059'],
    ['UTCTime', '261125205059+0000'],
    ['UTCTime', '261325205059Z'],
    ['UTCTime', '260230205059Z'],
    ['UTCTime', '261125245059Z'],
    ['UTCTime', '261125205060Z'],
    ['UTCTime', '261125205059Z '],
    ['GeneralizedTime', '202611252050Z'],
    ['GeneralizedTime', '20261125205059.10Z'],
    ['GeneralizedTime', '20261125205059.Z'],
  ])('refuses %s %j, which Go does not print back the same', (kind, text) => {
    expect(() => (kind === 'UTCTime' ? utc(text) : generalized(text))).toThrow(/^x509: malformed/);
  });

  it('refuses other types', () => {
    expect(() => parseAsn1Time(new asn1js.Integer({ value: 1 }))).toThrow('x509: malformed validity');
  });
});
