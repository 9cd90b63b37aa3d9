import { gzipSync } from 'node:zlib';
import { stringify as yamlStringify } from 'yaml';
import { StatusError, StatusReason, encodeJson, isStatusError, newInternalError } from '@plat/api-model';
import type { RequestContext } from './context.js';
import type { MediaTypeChoice } from './negotiation.js';
import { requestHeader } from './request-header.js';
import { closeAfterUnreadBody } from './unread-body.js';

/** Kubernetes compresses responses above 128 KiB when the client accepts gzip. */
export const gzipThresholdBytes = 128 * 1024;

/** `pretty=true`, or a curl/wget user agent, indents the JSON (as Kubernetes does). */
export function wantsPretty(ctx: RequestContext): boolean {
  const p = ctx.query.get('pretty');
  if (p !== null) return ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(p);
  const ua = requestHeader(ctx.req, 'user-agent') ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('wget');
}

export function encodeBody(obj: unknown, format: 'json' | 'yaml', pretty: boolean): string {
  if (format === 'yaml') return yamlStringify(obj);
  return `${encodeJson(obj, pretty ? 2 : 0)}\n`;
}

function acceptsGzip(ctx: RequestContext): boolean {
  const header = String(ctx.req.headers['accept-encoding'] ?? '');
  return header
    .split(',')
    .map((s) => s.trim().split(';')[0]!.toLowerCase())
    .includes('gzip');
}

/** A warning header value: `299 - "text"` (RFC 7234 warn-code 299, as Kubernetes sends). */
export function warningHeaderValue(text: string): string {
  return `299 - ${JSON.stringify(text)}`;
}

/** k8s.io/apiserver's warning recorder bounds: total runes of warning text, and runes per warning once over it. */
export const warningTotalRunes = 4 * 1024;
export const warningItemRunes = 256;

function runeLength(text: string): number {
  let n = text.length;
  // Surrogate pairs are one rune; only strings that can hold one pay for counting.
  for (let i = 0; i < text.length; i++) if ((text.charCodeAt(i) & 0xfc00) === 0xd800) n--;
  return n;
}

function firstRunes(text: string, runes: number): string {
  return runeLength(text) <= runes ? text : Array.from(text).slice(0, runes).join('');
}

/**
 * The warnings a response carries, as kube-apiserver's warning recorder writes them: empty and
 * repeated texts dropped; while the texts add up to at most 4 KiB of runes they go out whole;
 * past that every warning, those before included, is cut to 256 runes, and warnings stop once
 * 4 KiB more have gone out. (100,000 unknown fields would otherwise send megabytes of headers.)
 */
export function boundedWarnings(texts: readonly string[]): string[] {
  const ordered: string[] = [];
  const seen = new Set<string>();
  let out: string[] = [];
  let written = 0;
  let truncating = false;
  for (const text of texts) {
    if (truncating && written >= warningTotalRunes) break;
    if (text === '' || seen.has(text)) continue;
    seen.add(text);
    ordered.push(text);
    const length = truncating ? Math.min(runeLength(text), warningItemRunes) : runeLength(text);
    if (written + length <= warningTotalRunes || truncating) {
      written += length;
      out.push(truncating ? firstRunes(text, warningItemRunes) : text);
      continue;
    }
    // Over the bound for the first time: start again with every warning so far cut short.
    truncating = true;
    out = ordered.map((t) => firstRunes(t, warningItemRunes));
    written = out.reduce((sum, t) => sum + runeLength(t), 0);
  }
  return out;
}

/** Response headers as Node's `writeHead` takes them flat: name, value, name, value. */
type HeaderList = (string | number | string[])[];

/**
 * Headers every answer carries: Audit-Id, Cache-Control (unless a handler set one), warnings.
 * A flat list, not an object: Node writes a list's pairs in order, where an object (of a shape
 * that depends on which headers this response has) costs a `for...in`, a has-own check and a
 * keyed load per header, besides the object itself. Node's `_storeHeader` went from 0.45-0.57 to
 * 0.33 µs of a GET's perf samples, and `hasOwnProperty` from 0.13 to none (the bare server's:
 * 0.13 and 0.01; perf-native.mjs, load 2-4; docs/performance.md "apiserver").
 */
function commonHeaders(ctx: RequestContext): HeaderList {
  const headers: HeaderList = ['Audit-Id', ctx.auditId];
  if (!ctx.res.getHeader('Cache-Control')) headers.push('Cache-Control', 'no-cache, private');
  // Deduplicated, in the order they were added, bounded as kube-apiserver bounds them.
  if (ctx.warnings.length) headers.push('Warning', boundedWarnings(ctx.warnings).map(warningHeaderValue));
  return headers;
}

/** Sets the common headers on a response whose head a handler writes itself (watch streams). */
export function setCommonHeaders(ctx: RequestContext): void {
  if (ctx.res.headersSent) return;
  const headers = commonHeaders(ctx);
  for (let i = 0; i < headers.length; i += 2) ctx.res.setHeader(headers[i] as string, headers[i + 1]!);
}

/** Writes an object (or Status) with the negotiated media type, pretty printing and gzip. */
export function writeObject(ctx: RequestContext, code: number, obj: unknown, choice?: MediaTypeChoice): void {
  const format = choice?.format ?? 'json';
  ctx.audit?.logResponseObject(obj);
  // A string body goes out with the headers in one write (Node joins them); no Buffer copy.
  const body = encodeBody(obj, format, wantsPretty(ctx));
  writeBody(ctx, code, choice?.contentType ?? (format === 'yaml' ? 'application/yaml' : 'application/json'), body);
}

export function writeBody(ctx: RequestContext, code: number, contentType: string, body: Buffer | string): void {
  const { res } = ctx;
  if (res.headersSent || res.writableEnded) return;
  let payload = body;
  let length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  // All headers go to writeHead at once (Node merges what handlers set before with setHeader);
  // cheaper than one setHeader call each.
  const headers = commonHeaders(ctx);
  headers.push('Content-Type', contentType, 'X-Content-Type-Options', 'nosniff');
  if (length > gzipThresholdBytes && acceptsGzip(ctx)) {
    const zipped = gzipSync(body);
    payload = zipped;
    length = zipped.length;
    headers.push('Content-Encoding', 'gzip', 'Vary', 'Accept-Encoding');
  }
  headers.push('Content-Length', length);
  closeAfterUnreadBody(ctx);
  res.writeHead(code, headers);
  res.end(ctx.method === 'HEAD' ? undefined : payload);
}

export function writeText(ctx: RequestContext, code: number, text: string): void {
  writeBody(ctx, code, 'text/plain; charset=utf-8', Buffer.from(text));
}

/** Any thrown value as a StatusError: unknown errors become 500 InternalError. */
export function toStatusError(err: unknown): StatusError {
  if (isStatusError(err)) return err;
  return newInternalError(err);
}

/** Writes the error as a `Status` body with its code (and Retry-After when it carries one). */
export function writeError(ctx: RequestContext, err: unknown, choice?: MediaTypeChoice): void {
  const status = toStatusError(err);
  const retry = status.status.details?.retryAfterSeconds;
  if (retry && !ctx.res.headersSent) ctx.res.setHeader('Retry-After', String(retry));
  // Errors are always plain JSON (or YAML) Status objects, never Tables.
  const plain: MediaTypeChoice | undefined = choice
    ? { format: choice.format, contentType: choice.format === 'yaml' ? 'application/yaml' : 'application/json' }
    : undefined;
  writeObject(ctx, status.code, status.toJSON(), plain);
}

/** Kubernetes' answer for a path nothing serves. */
export function newPathNotFound(): StatusError {
  return new StatusError({ code: 404, reason: StatusReason.NotFound, message: 'the server could not find the requested resource', details: {} });
}
