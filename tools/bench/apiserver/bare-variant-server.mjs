// A bare server that takes on, one trait at a time, what the apiserver's process and listener
// have and bare-server.mjs does not (bare-variants.mjs measures them against each other). Reads
// one JSON line from stdin: { cert, key, ca, body, contentType, traits: [...] }; prints its port.
// Traits:
//   tls      the apiserver's TLS options (secure-serving.ts): minVersion TLSv1.2, client
//            certificates requested but not rejected, a handshake timeout
//   http2    node:http2's secure server with its HTTP/1.1 fallback (allowHTTP1), as the apiserver
//   limits   the HTTP/1.1 limits the apiserver sets (header and request timeouts checked every
//            second, 90 s keep-alive, no header count bound) and setNoDelay per connection
//   headers  the apiserver's response headers (Audit-Id from randomUUID, Cache-Control,
//            X-Content-Type-Options), one writeHead with an object
//   peer     the client certificate read per request (getPeerCertificate), as an authenticator
//   v8       the apiserver's V8 flag (no allocation-site pretenuring, v8-tuning.ts)
//   heap     200 MB of live objects in the old generation, as a server holding caches
//   promises ten awaits per request, as a chain of async filters
//   busy     a 25 µs busy loop per request, so that the server is slower than its load generator
//            and the client sleeps between responses (as it does against the apiserver)
//   coalesce the HTTP/1.1 responses of one event-loop turn held (socket.cork() at the request)
//            and sent together in one setImmediate (the check phase, after every readable socket
//            of the poll has been served)
import crypto from 'node:crypto';
import http2 from 'node:http2';
import https from 'node:https';
import v8 from 'node:v8';

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  const { cert, key, ca, body, contentType, traits = [] } = JSON.parse(input);
  const has = (t) => traits.includes(t);
  if (has('v8')) v8.setFlagsFromString('--no-allocation-site-pretenuring');
  const held = [];
  if (has('heap')) for (let i = 0; i < 400_000; i++) held.push({ i, name: `object-${i}`, labels: { a: String(i) }, data: 'x'.repeat(400) + i });
  globalThis.held = held;
  const bytes = Buffer.from(body, 'utf8');
  const tls = has('tls')
    ? { cert, key, ca, requestCert: true, rejectUnauthorized: false, minVersion: 'TLSv1.2', handshakeTimeout: 10_000 }
    : { cert, key, ca, requestCert: true, rejectUnauthorized: true };
  const corked = new Set();
  const uncorkAll = () => {
    for (const socket of corked) socket.uncork();
    corked.clear();
  };
  const respond = async (req, res) => {
    req.resume();
    if (has('coalesce') && !corked.has(req.socket)) {
      if (corked.size === 0) setImmediate(uncorkAll);
      req.socket.cork();
      corked.add(req.socket);
    }
    if (has('busy')) {
      const until = performance.now() + 0.025;
      while (performance.now() < until);
    }
    if (has('peer')) req.socket.getPeerCertificate?.();
    if (has('promises')) for (let i = 0; i < 10; i++) await null;
    if (has('headers')) {
      res.writeHead(200, { 'Audit-Id': crypto.randomUUID(), 'Cache-Control': 'no-cache, private', 'Content-Type': contentType, 'X-Content-Type-Options': 'nosniff', 'Content-Length': bytes.length });
    } else res.writeHead(200, { 'content-type': contentType, 'content-length': bytes.length });
    res.end(bytes);
  };
  const server = has('http2') ? http2.createSecureServer({ ...tls, allowHTTP1: true }, respond) : https.createServer({ ...tls, keepAliveTimeout: 60_000 }, respond);
  if (has('limits')) {
    Object.assign(server, { maxHeaderSize: 1024 * 1024, headersTimeout: 32_000, requestTimeout: 92_000, keepAliveTimeout: 90_000, maxHeadersCount: 0, connectionsCheckingInterval: 1_000 });
    server.on('secureConnection', (socket) => socket.setNoDelay(true));
  }
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
  process.on('SIGTERM', () => {
    server.closeAllConnections?.();
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 1000).unref();
  });
});
