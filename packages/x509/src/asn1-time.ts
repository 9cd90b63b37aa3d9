import * as asn1js from 'asn1js';
import { fail } from './asn1-reader.js';

/**
 * X.509 validity times read as Go's crypto/x509 reads them (cryptobyte's ReadASN1UTCTime and
 * ReadASN1GeneralizedTime): the text must parse with Go's layout and print back to the very same
 * text, so no stray characters, no out-of-range fields, no `+0000` where `Z` is meant, no
 * trailing zeros in fractions. asn1js alone accepts more (digits followed by junk, for one).
 */

const utcTime = /^(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)?(Z|[+-]\d{4})$/;
const generalizedTime = /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(?:\.(\d{0,8}[1-9]))?(Z|[+-]\d{4})$/;

function toDate(year: number, month: number, day: number, hour: number, minute: number, second: number, millis: number, zone: string): Date {
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) fail('x509: malformed validity');
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const hh = Number(zone.slice(1, 3));
    const mm = Number(zone.slice(3, 5));
    // Go formats a zero offset as Z, so "+0000" does not print back; its offsets stay below a day.
    if (hh > 23 || mm > 59 || (hh === 0 && mm === 0)) fail('x509: malformed validity');
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (hh * 60 + mm);
  }
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * 60_000;
  return new Date(utc);
}

export function parseAsn1Time(node: asn1js.AsnType | undefined): Date {
  // asn1js's GeneralizedTime extends its UTCTime: ask for the more specific class first.
  const isGeneralized = node instanceof asn1js.GeneralizedTime;
  const isUtc = !isGeneralized && node instanceof asn1js.UTCTime;
  if (!isUtc && !isGeneralized) fail('x509: malformed validity');
  const text = Buffer.from(node.valueBlock.valueHexView).toString('latin1');
  if (isUtc) {
    const m = utcTime.exec(text);
    if (!m) fail('x509: malformed UTCTime');
    const yy = Number(m[1]);
    // Two-digit years: 50–99 are 1950–1999, 00–49 are 2000–2049 (RFC 5280 4.1.2.5.1).
    return toDate(yy >= 50 ? 1900 + yy : 2000 + yy, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0), 0, m[7]);
  }
  const m = generalizedTime.exec(text);
  if (!m) fail('x509: malformed GeneralizedTime');
  // Milliseconds are all a Date holds; the digits after them were checked above.
  const millis = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  return toDate(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), millis, m[8]);
}
