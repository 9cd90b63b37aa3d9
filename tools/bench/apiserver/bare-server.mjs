// The baseline of tools/bench/apiserver/bench.mjs: a bare node:https server with the same TLS
// setup as the apiserver (serving certificate, client certificates requested and verified
// against the same CA) that answers every request with the bytes the apiserver sent for one GET.
// Reads one JSON line from stdin: { cert, key, ca, body, contentType }; prints its port.
import https from 'node:https';

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  const { cert, key, ca, body, contentType } = JSON.parse(input);
  const bytes = Buffer.from(body, 'utf8');
  const server = https.createServer({ cert, key, ca, requestCert: true, rejectUnauthorized: true, keepAliveTimeout: 60_000 }, (req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': contentType, 'content-length': bytes.length });
    res.end(bytes);
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
});
