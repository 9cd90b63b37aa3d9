import type { IncomingRequest } from './context.js';

/**
 * One request header, read from the request's raw header list, as `req.headers[name]` answers
 * it: `accept`, `traceparent`, `tracestate` and `transfer-encoding` (list headers to Node) joined
 * with `, `, `user-agent`, `authorization` and `content-length` (single-value headers) their first
 * value. `name` is lower-case.
 *
 * Why not `req.headers`: Node builds that object on first use from the raw list (a new object of
 * its own shape each request, every header lower-cased and added), and reading it is a
 * megamorphic keyed load. A GET reads its headers this way and never has `req.headers` built.
 * With the GET path's other cuts (docs/performance.md "apiserver", the request path in one
 * process): 1.4 KB less garbage per GET, 11.1 to 9.7 KB in our code, and CPU per GET B ÷ A
 * 0.95-0.99 in three same-run A/Bs (inprocess.mjs).
 * Requests without a raw list (the server's loopback requests) are read by name.
 */
export function requestHeader(
  req: IncomingRequest,
  name: 'accept' | 'user-agent' | 'authorization' | 'traceparent' | 'tracestate' | 'content-length' | 'transfer-encoding',
): string | undefined {
  const raw = (req as { rawHeaders?: readonly string[] }).rawHeaders;
  const single = name === 'user-agent' || name === 'authorization' || name === 'content-length';
  if (raw === undefined) {
    const v = req.headers[name];
    return Array.isArray(v) ? (single ? v[0] : v.join(', ')) : v;
  }
  let value: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const n = raw[i]!;
    if (n.length !== name.length || !(n === name || sameLowerCase(n, name))) continue;
    // Node's IncomingMessage keeps the first User-Agent, Authorization and Content-Length, and joins the others.
    if (single) return raw[i + 1];
    value = value === undefined ? raw[i + 1] : `${value}, ${raw[i + 1]}`;
  }
  return value;
}

/**
 * Whether `raw` is `lower` in any letter case (ASCII; `lower` is a lower-case header name of
 * the same length). `raw.toLowerCase() === lower` made a new string for every header of the
 * same length as the name asked (`Accept`, `User-Agent` as clients send them), each GET: 32 B of
 * a GET's garbage (inprocess.mjs --profile --heap; docs/performance.md "apiserver", fourth round).
 */
function sameLowerCase(raw: string, lower: string): boolean {
  for (let i = 0; i < lower.length; i++) {
    const c = raw.charCodeAt(i);
    const want = lower.charCodeAt(i);
    // Upper-case ASCII letters are their lower-case letter minus 0x20.
    if (c !== want && !(c >= 0x41 && c <= 0x5a && c + 0x20 === want)) return false;
  }
  return true;
}
