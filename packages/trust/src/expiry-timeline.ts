import type { TrustAnchor } from '@plat/x509';

/** What `renderExpiryTimeline` draws and how. */
export interface ExpiryTimelineOptions {
  /** Columns of the whole drawing (a terminal's width); below `minExpiryTimelineWidth`, that minimum. */
  width: number;
  /** Today; defaults to the clock. */
  now?: Date | number;
  /** Anchors whose notAfter falls within this of `now` are drawn as expiring (`clientctl trust inspect --fail-within`); 0 or absent: none. */
  soonMs?: number;
  /** ANSI colours (a terminal that wants them); the characters stay the same either way. */
  color?: boolean;
  /** Axis bounds; by default the axis holds today and every notAfter, and reaches back for notBefore as far as it reaches forward. */
  from?: Date | number;
  to?: Date | number;
}

/** How far from today the default axis reaches (two years), or twice `soonMs` when that is longer. */
export const expiryTimelineHorizonMs = 730 * 86_400_000;

/** The narrowest drawing: a label of 8 columns and a bar of 15. Narrower requests get this width. */
export const minExpiryTimelineWidth = 24;

/** The characters, distinct per state so that the plain drawing shows what colour would. */
export const expiryTimelineGlyphs = {
  valid: '=',
  expiring: '!',
  expired: 'x',
  today: '|',
  clippedBefore: '<',
  clippedAfter: '>',
} as const;

type Style = 'valid' | 'expiring' | 'expired' | 'today' | 'axis' | 'plain';
type Cell = { ch: string; style: Style };

const sgr: Record<Style, string> = { valid: '32', expiring: '33', expired: '31', today: '1;36', axis: '2', plain: '' };
const dayMs = 86_400_000;
/** A width that is no number (a terminal that did not say): a classic terminal's. */
const defaultWidth = 80;
const gap = 1;
/** ` 2026-01-10` after each bar, when the drawing is wide enough to keep a useful bar beside it. */
const dateColumn = 11;
const dateColumnFromWidth = 60;

function ms(t: Date | number): number {
  return typeof t === 'number' ? t : t.getTime();
}

function isoDay(t: number): string {
  return new Date(t).toISOString().slice(0, 10);
}

/** The CN of an RFC 4514 subject (escapes undone), or the whole subject when it has none. */
function commonName(subject: string): string {
  const m = /(?:^|[,+])CN=((?:\\.|[^,+\\])*)/.exec(subject);
  if (!m) return subject;
  return m[1]!.replace(/\\(.)/g, '$1');
}

function stateOf(a: TrustAnchor, now: number, soonMs: number): 'valid' | 'expiring' | 'expired' {
  const left = a.notAfter.getTime() - now;
  if (left < 0) return 'expired';
  if (soonMs > 0 && left <= soonMs) return 'expiring';
  return 'valid';
}

/** A label kept within `width` columns: the CN shortened with `~`, the fingerprint kept whole while it fits. */
function fitLabel(name: string, fingerprint: string, width: number): string {
  const full = `${name} ${fingerprint}`;
  if (full.length <= width) return full;
  const room = width - fingerprint.length - 1;
  if (room >= 6) return `${name.slice(0, room - 1)}~ ${fingerprint}`;
  return `${full.slice(0, Math.max(0, width - 1))}~`;
}

function axisBounds(anchors: readonly TrustAnchor[], now: number, options: ExpiryTimelineOptions): { start: number; end: number } {
  // Today and every notAfter, within the horizon either side of today (a root valid for decades
  // would squash every other bar); then, for context, notBefore as far back as a quarter of that.
  // Longer bars are clipped with `<` and `>`; the date column still gives their notAfter.
  const horizon = Math.max(expiryTimelineHorizonMs, 2 * (options.soonMs ?? 0));
  let earliestAfter = now;
  let latestAfter = now;
  let earliestBefore = now;
  for (const a of anchors) {
    earliestAfter = Math.min(earliestAfter, a.notAfter.getTime());
    latestAfter = Math.max(latestAfter, a.notAfter.getTime());
    earliestBefore = Math.min(earliestBefore, a.notBefore.getTime());
  }
  const coreStart = Math.max(earliestAfter, now - horizon);
  const coreEnd = Math.min(latestAfter, now + horizon);
  const context = Math.max(coreEnd - coreStart, dayMs) / 4;
  let start = options.from !== undefined ? ms(options.from) : Math.max(Math.min(earliestBefore, coreStart), coreStart - context);
  let end = options.to !== undefined ? ms(options.to) : coreEnd;
  if (end - start < dayMs) {
    const mid = (start + end) / 2;
    start = mid - dayMs / 2;
    end = mid + dayMs / 2;
  }
  return { start, end };
}

/**
 * The anchors on a time axis, one row per anchor (earliest notAfter first): a label (the subject's
 * CN and the first 8 hex digits of the SHA-256), a bar from notBefore to notAfter drawn with `=`
 * (valid), `!` (expires within `soonMs`) or `x` (expired), `<`/`>` where a bar runs past the axis,
 * today as a `|` column, dates along the axis and a legend. Plain ASCII; `color` adds ANSI colours
 * around the same characters. Every line fits `width` (at least `minExpiryTimelineWidth`).
 */
export function renderExpiryTimeline(anchors: readonly TrustAnchor[], options: ExpiryTimelineOptions): string {
  const width = Number.isFinite(options.width) ? Math.max(minExpiryTimelineWidth, Math.floor(options.width)) : defaultWidth;
  const now = options.now === undefined ? Date.now() : ms(options.now);
  const soonMs = options.soonMs ?? 0;
  const color = options.color ?? false;
  const rows = anchors
    .map((a) => ({ anchor: a, name: commonName(a.subject), fingerprint: a.sha256.slice(0, 8), state: stateOf(a, now, soonMs) }))
    .sort((x, y) => x.anchor.notAfter.getTime() - y.anchor.notAfter.getTime() || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));

  const dates = width >= dateColumnFromWidth ? dateColumn : 0;
  const longest = rows.reduce((n, r) => Math.max(n, r.name.length + 1 + r.fingerprint.length), 0);
  const minBar = 15;
  const labelWidth = Math.max(8, Math.min(longest, Math.floor(width * 0.4), width - gap - dates - minBar));
  const barWidth = width - labelWidth - gap - dates;
  const { start, end } = axisBounds(anchors, now, options);
  const span = end - start;
  const column = (t: number) => Math.min(barWidth - 1, Math.max(0, Math.floor(((t - start) / span) * barWidth)));
  const todayColumn = now >= start && now <= end ? column(now) : undefined;
  const indent = ' '.repeat(labelWidth + gap);

  const out: Cell[][] = [];
  const text = (s: string, style: Style = 'plain'): Cell[] => [...s].map((ch) => ({ ch, style }));

  // The axis: dates above tick marks, evenly spaced, none overlapping the previous one.
  const dateText = span < 10 * dayMs && barWidth >= 16 ? (t: number) => new Date(t).toISOString().slice(0, 16) : isoDay;
  const labelLength = dateText(start).length;
  const ticks = Math.max(2, Math.floor(barWidth / (labelLength + 6)) + 1);
  const dateLine: Cell[] = text(' '.repeat(barWidth));
  const tickLine: Cell[] = text('-'.repeat(barWidth), 'axis');
  // The last date is right-aligned to the end of the axis and placed first: the others give way to it.
  const place = (at: number, label: string) => dateLine.splice(at, label.length, ...text(label));
  const endLabel = dateText(end);
  const endAt = Math.max(0, barWidth - endLabel.length);
  place(endAt, endLabel);
  let free = 0;
  for (let i = 0; i < ticks; i++) {
    const c = Math.round((i * (barWidth - 1)) / (ticks - 1));
    tickLine[c] = { ch: '+', style: 'axis' };
    if (i === ticks - 1) continue;
    const label = dateText(start + (c / barWidth) * span);
    if (c < free || c + label.length + 2 > endAt) continue;
    place(c, label);
    free = c + label.length + 2;
  }
  out.push([...text(indent), ...dateLine], [...text(indent), ...tickLine]);

  for (const r of rows) {
    const bar: Cell[] = text(' '.repeat(barWidth));
    const from = r.anchor.notBefore.getTime();
    const to = r.anchor.notAfter.getTime();
    if (to < start) bar[0] = { ch: expiryTimelineGlyphs.clippedBefore, style: r.state };
    else if (from > end) bar[barWidth - 1] = { ch: expiryTimelineGlyphs.clippedAfter, style: r.state };
    else {
      for (let c = column(from); c <= column(to); c++) bar[c] = { ch: expiryTimelineGlyphs[r.state], style: r.state };
      if (from < start) bar[0] = { ch: expiryTimelineGlyphs.clippedBefore, style: r.state };
      if (to > end) bar[barWidth - 1] = { ch: expiryTimelineGlyphs.clippedAfter, style: r.state };
    }
    // Today's column crosses empty cells, and bars that run on both sides of it; a bar that ends
    // (or begins) there keeps its own character, so a short expiring bar never hides behind it.
    if (todayColumn !== undefined) {
      const inBar = (c: number) => c >= 0 && c < barWidth && bar[c]!.ch !== ' ';
      if (!inBar(todayColumn) || (inBar(todayColumn - 1) && inBar(todayColumn + 1))) bar[todayColumn] = { ch: expiryTimelineGlyphs.today, style: 'today' };
    }
    const label = fitLabel(r.name, r.fingerprint, labelWidth).padEnd(labelWidth + gap);
    out.push([...text(label), ...bar, ...(dates ? text(` ${isoDay(to)}`, r.state) : [])]);
  }

  // Where today is: under its column (text to the right, else to the left, else on a line of
  // its own), or at the edge of the axis it lies beyond.
  const todayText = `today ${isoDay(now)}`;
  if (todayColumn === undefined) {
    out.push([...text(indent), ...text(now < start ? `< ${todayText}` : `${todayText} >`.padStart(barWidth), 'today')]);
  } else {
    const at = indent.length + todayColumn;
    if (at + 2 + todayText.length <= width) out.push(text(`${' '.repeat(at)}^ ${todayText}`, 'today'));
    else if (at + 1 >= todayText.length + 2) out.push(text(`${todayText} ^`.padStart(at + 1), 'today'));
    else out.push(text(`${' '.repeat(at)}^`, 'today'), text(todayText, 'today'));
  }

  const legend = [
    `${expiryTimelineGlyphs.valid} valid`,
    ...(soonMs > 0 ? [`${expiryTimelineGlyphs.expiring} expires within ${humanSpan(soonMs)}`] : []),
    `${expiryTimelineGlyphs.expired} expired`,
    `${expiryTimelineGlyphs.today} today`,
    `${expiryTimelineGlyphs.clippedBefore}${expiryTimelineGlyphs.clippedAfter} beyond the axis`,
  ];
  let line = '';
  for (const item of legend) {
    if (line && line.length + 2 + item.length > width) {
      out.push(text(line));
      line = item;
    } else line = line ? `${line}  ${item}` : item;
  }
  out.push(text(line));
  if (rows.length === 0) out.splice(2, 0, text('(no anchors)'));

  return out.map((cells) => serialize(trimEnd(cells), color)).join('\n') + '\n';
}

/** Days, else hours, else minutes: the unit `--fail-within` is usually given in. */
function humanSpan(t: number): string {
  if (t >= dayMs && t % dayMs === 0) return `${t / dayMs}d`;
  if (t >= 3_600_000 && t % 3_600_000 === 0) return `${t / 3_600_000}h`;
  return `${Math.ceil(t / 60_000)}m`;
}

function trimEnd(cells: readonly Cell[]): readonly Cell[] {
  let n = cells.length;
  while (n > 0 && cells[n - 1]!.ch === ' ') n--;
  return cells.slice(0, n);
}

function serialize(cells: readonly Cell[], color: boolean): string {
  if (!color) return cells.map((c) => c.ch).join('');
  let s = '';
  let open: Style = 'plain';
  for (const c of cells) {
    // Spaces keep the current colour: fewer escapes, and nothing visible changes.
    const style: Style = c.ch === ' ' ? open : c.style;
    if (style !== open) {
      if (open !== 'plain') s += '\x1b[0m';
      if (style !== 'plain') s += `\x1b[${sgr[style]}m`;
      open = style;
    }
    s += c.ch;
  }
  return open === 'plain' ? s : `${s}\x1b[0m`;
}
