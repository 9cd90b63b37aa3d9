import fc from 'fast-check';
import { createCertificate, type TrustAnchor } from '@plat/x509';
import { renderExpiryTimeline } from './expiry-timeline.js';
import { trustAnchorsFromText } from './trust-anchors-from-text.js';

const day = 86_400_000;
const now = Date.parse('2030-01-01T00:00:00Z');
const ansi = /\x1b\[[0-9;]*m/g;

/** A real CA certificate valid from `from` for `days` days (plus the dev PKI's five minutes), as the anchor facts a consumer gets. */
async function anchor(commonName: string, from: string, days: number): Promise<TrustAnchor> {
  const ca = await createCertificate({ commonName, basicConstraints: 'ca', keyUsage: ['keyCertSign'], notBefore: new Date(from), validityDays: days });
  return trustAnchorsFromText(ca.certPem, 'test').anchors.anchors[0]!;
}

let root: TrustAnchor, soon: TrustAnchor, gone: TrustAnchor, fresh: TrustAnchor;
/** The rendering with each anchor's fingerprint replaced by its name, so the expected text stays fixed. */
const named = (text: string) =>
  [
    [root, 'ROOTHASH'],
    [soon, 'SOONHASH'],
    [gone, 'GONEHASH'],
    [fresh, 'FRSHHASH'],
  ].reduce((t, [a, n]) => t.replaceAll((a as TrustAnchor).sha256.slice(0, 8), n as string), text);

beforeAll(async () => {
  [root, soon, gone, fresh] = await Promise.all([
    anchor('mesh-root', '2028-01-01T00:00:00Z', 3650),
    anchor('mesh-soon', '2029-12-15T00:00:00Z', 20),
    anchor('mesh-gone', '2029-01-01T00:00:00Z', 180),
    anchor('mesh-2030', '2029-12-20T00:00:00Z', 730),
  ]);
});

describe('renderExpiryTimeline', () => {
  it('draws one row per anchor, earliest notAfter first, with today, the dates and the legend', () => {
    const text = renderExpiryTimeline([root, fresh, soon, gone], { width: 100, now, soonMs: 30 * day });
    expect(text).not.toMatch(ansi);
    expect(named(text)).toBe(
      [
        '                   2028-11-13       2029-08-18        2030-06-08               2032-01-01',
        '                   +----------------+-----------------+----------------+----------------+',
        'mesh-gone GONEHASH   xxxxxxxxxxxxx          |                                             2029-06-30',
        'mesh-soon SOONHASH                         !!                                             2030-01-04',
        'mesh-2030 FRSHHASH                         =|============================================ 2031-12-20',
        'mesh-root ROOTHASH <========================|===========================================> 2037-12-29',
        '                                            ^ today 2030-01-01',
        '= valid  ! expires within 30d  x expired  | today  <> beyond the axis',
        '',
      ].join('\n'),
    );
  });

  it('marks expiring anchors only with a window, and expired ones always', () => {
    const rowOf = (text: string, a: TrustAnchor) => text.split('\n').find((l) => l.includes(a.sha256.slice(0, 8)))!;
    const without = renderExpiryTimeline([soon, gone], { width: 80, now });
    expect(rowOf(without, soon)).toMatch(/=/);
    expect(rowOf(without, soon)).not.toMatch(/!/);
    expect(rowOf(without, gone)).toMatch(/x/);
    expect(without).not.toContain('expires within');
    const within = renderExpiryTimeline([soon, gone], { width: 80, now, soonMs: 3 * day + 5 * 60_000 });
    expect(rowOf(within, soon)).toMatch(/!/);
    expect(rowOf(within, soon)).not.toMatch(/=/);
    // The window ends before the anchor does: valid again.
    expect(rowOf(renderExpiryTimeline([soon], { width: 80, now, soonMs: 3 * day }), soon)).not.toMatch(/!/);
  });

  it('colours the same characters for a terminal: red expired, yellow expiring, green valid', () => {
    const plain = renderExpiryTimeline([root, soon, gone], { width: 90, now, soonMs: 30 * day });
    const coloured = renderExpiryTimeline([root, soon, gone], { width: 90, now, soonMs: 30 * day, color: true });
    expect(coloured.replace(ansi, '')).toBe(plain);
    expect(coloured).toMatch(/\x1b\[31mx+/);
    expect(coloured).toMatch(/\x1b\[33m!+/);
    expect(coloured).toMatch(/\x1b\[32m<=+/);
    expect(coloured).toMatch(/\x1b\[1;36m\|\x1b\[0m/);
    // Every colour is reset on its line: nothing bleeds into the next line or the shell prompt.
    for (const line of coloured.split('\n')) if (line.includes('\x1b[')) expect(line).toMatch(/\x1b\[0m$/);
  });

  it('keeps every line within narrow widths, down to the minimum of 24 columns', () => {
    for (const width of [10, 24, 30, 40, 59, 60, 61, 79]) {
      const lines = renderExpiryTimeline([root, fresh, soon, gone], { width, now, soonMs: 30 * day }).trimEnd().split('\n');
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(Math.max(width, 24));
      // Still one row per anchor, each with its state's character.
      const rows = lines.filter((l) => /[=!x<>]/.test(l.slice(8)) && /^mesh/.test(l));
      expect(rows).toHaveLength(4);
      expect(rows[0]).toMatch(/x/);
      expect(rows[1]).toMatch(/!/);
    }
    // Below 60 columns the notAfter column goes first; labels shorten with ~.
    const narrow = renderExpiryTimeline([root], { width: 30, now });
    expect(narrow).not.toContain('2037-12-29 ');
    expect(narrow).toMatch(/^mesh-root ~? ?\S*/m);
    expect(renderExpiryTimeline([root], { width: 26, now }).split('\n')[2]).toMatch(/^mesh-root~ </);
    // No width at all (a terminal that did not say): 80 columns.
    expect(renderExpiryTimeline([root], { width: Number.NaN, now })).toBe(renderExpiryTimeline([root], { width: 80, now }));
  });

  it('fits lines to any width and draws every anchor, whatever the validity periods (property)', () => {
    const arb = fc.record({
      width: fc.integer({ min: 1, max: 240 }),
      soonDays: fc.integer({ min: 0, max: 400 }),
      anchors: fc.array(
        fc.record({ from: fc.integer({ min: -8000, max: 800 }), days: fc.integer({ min: 0, max: 9000 }), cn: fc.string({ maxLength: 60 }) }),
        { maxLength: 12 },
      ),
    });
    fc.assert(
      fc.property(arb, ({ width, soonDays, anchors }) => {
        const list: TrustAnchor[] = anchors.map((a, i) => ({
          subject: `CN=${a.cn.replace(/[,+\\\n]/g, '_')}`,
          issuer: '',
          sha256: i.toString(16).padStart(64, '0'),
          notBefore: new Date(now + a.from * day),
          notAfter: new Date(now + (a.from + a.days) * day),
          selfSigned: true,
          ca: true,
        }));
        const lines = renderExpiryTimeline(list, { width, now, soonMs: soonDays * day }).trimEnd().split('\n');
        for (const line of lines) expect(line.length).toBeLessThanOrEqual(Math.max(width, 24));
        if (list.length === 0) expect(lines[2]).toBe('(no anchors)');
        // A bar (or an edge marker) in the bar area of each row, however short its validity.
        for (const row of lines.slice(2, 2 + list.length)) expect(row).toMatch(/[=!x<>]/);
      }),
      { numRuns: 300 },
    );
  });

  it('draws many anchors, one row each, sorted by notAfter', async () => {
    const many = await Promise.all(Array.from({ length: 40 }, (_, i) => anchor(`ca-${String(i).padStart(2, '0')}`, '2029-06-01T00:00:00Z', 200 + ((i * 37) % 40) * 10)));
    const lines = renderExpiryTimeline(many, { width: 80, now, soonMs: 30 * day }).split('\n');
    const rows = lines.filter((l) => /^ca-\d\d /.test(l));
    expect(rows).toHaveLength(40);
    const order = rows.map((r) => many.find((a) => r.includes(a.sha256.slice(0, 8)))!.notAfter.getTime());
    expect(order).toEqual([...order].sort((x, y) => x - y));
    // The today column runs through every row that has nothing or a bar on both sides of it.
    const col = lines.find((l) => l.includes('^ today'))!.indexOf('^');
    expect(rows.every((r) => /[|x!=]/.test(r[col]!))).toBe(true);
  });

  it('clips bars that run before or after the axis with < and >, and says where today is when off the axis', () => {
    const from = Date.parse('2029-11-01T00:00:00Z');
    const to = Date.parse('2030-03-01T00:00:00Z');
    const text = renderExpiryTimeline([root, gone, soon], { width: 80, now, from, to });
    const rowOf = (a: TrustAnchor) => text.split('\n').find((l) => l.includes(a.sha256.slice(0, 8)))!;
    const bar = (a: TrustAnchor) => rowOf(a).slice(19, 80 - 11);
    expect(bar(root)).toMatch(/^<=+\|=+>$/);
    // Entirely before the axis: one < at its start, the date column still says when.
    expect(bar(gone).trimEnd()).toMatch(/^x?<? *\|$/);
    expect(bar(gone).startsWith('<')).toBe(true);
    expect(rowOf(gone)).toMatch(/ 2029-06-30$/);
    expect(text.split('\n')[0]).toMatch(/^ +2029-11-01 .* 2030-03-01$/);
    const later = renderExpiryTimeline([root], { width: 80, now, from: now + 100 * day, to: now + 200 * day });
    expect(later).toMatch(/\n +< today 2030-01-01\n/);
    expect(later).toMatch(/mesh-root \S+ +<=+> 2037-12-29\n/);
  });

  it('draws the axis alone when there is no anchor', () => {
    expect(renderExpiryTimeline([], { width: 60, now })).toMatch(/\n\(no anchors\)\n +\^ today 2030-01-01\n/);
  });
});
