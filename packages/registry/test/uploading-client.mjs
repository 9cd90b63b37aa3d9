// A client in its own process (as the users who met the reset ran it): uploads SIZE bytes to URL
// with node:https and `agent: false` (HTTP/1.1) or node:http2, in one write (WHOLE=1) or in 1 MiB
// chunks honouring backpressure, and prints as one JSON line the answer it read (or the error
// that came before any answer) and, for chunked HTTP/1.1 uploads, how many bytes it had handed
// to the connection when the server closed it.
import * as https from 'node:https';
import * as http2 from 'node:http2';

const { URL: url, CA: ca, CERT: cert, KEY: key, SIZE, DECLARED, PROTOCOL, WHOLE } = process.env;
const size = Number(SIZE);
const headers = { 'content-type': 'application/json', ...(DECLARED === '1' ? { 'content-length': String(size) } : {}) };
const chunk = Buffer.alloc(1024 * 1024, 0x20);
let sent = 0;
const outcome = {};
const done = () => {
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
  process.exit(0);
};

function upload(req) {
  if (WHOLE === '1') {
    req.end(Buffer.alloc(size, 0x20));
    return;
  }
  const pump = () => {
    while (sent < size) {
      const n = Math.min(chunk.length, size - sent);
      sent += n;
      if (!req.write(chunk.subarray(0, n))) {
        req.once('drain', pump);
        return;
      }
    }
    req.end();
  };
  pump();
}

if (PROTOCOL === 'h2') {
  const session = http2.connect(url, { ca, cert, key, servername: 'localhost' });
  const req = session.request({ ':method': 'POST', ':path': new URL(url).pathname, ...headers });
  const chunks = [];
  req.on('response', (h) => (outcome.status = h[':status']));
  req.on('data', (d) => chunks.push(d));
  // RST_STREAM NO_ERROR ends the answer (rstCode is set by then); Node's client then waits for a
  // 'drain' of the upload that never comes, so the answer's end is where it stops.
  const answered = () => {
    outcome.body = Buffer.concat(chunks).toString('utf8');
    outcome.rstCode = req.rstCode;
    done();
  };
  req.on('end', answered);
  req.on('close', answered);
  req.on('error', (err) => (outcome.error ??= err.code ?? err.message));
  session.on('error', (err) => (outcome.error ??= err.code ?? err.message));
  upload(req);
} else {
  const req = https.request(url, { method: 'POST', agent: false, ca, cert, key, servername: 'localhost', headers });
  let answered = false;
  let closed = false;
  const finish = () => answered && closed && done();
  req.on('socket', (socket) =>
    socket.on('close', () => {
      outcome.sentWhenClosed = sent;
      closed = true;
      if (!answered) done();
      finish();
    }),
  );
  req.on('response', (res) => {
    const chunks = [];
    res.on('data', (d) => chunks.push(d));
    res.on('end', () => {
      Object.assign(outcome, { status: res.statusCode, connection: res.headers.connection, body: Buffer.concat(chunks).toString('utf8') });
      answered = true;
      finish();
    });
    res.on('error', (err) => (outcome.error ??= `while reading the answer: ${err.code ?? err.message}`));
  });
  // Once the answer is in, the rest of the upload may fail: the server stopped reading.
  req.on('error', (err) => answered || (outcome.error ??= err.code ?? err.message));
  upload(req);
}
