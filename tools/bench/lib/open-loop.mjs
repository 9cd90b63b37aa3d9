// An open-loop load generator for latency at a fixed rate: requests are due at evenly spaced
// times (whether or not earlier ones have answered) and go out on the next idle keep-alive
// connection (or wait in a queue for one); each latency is counted from the time the request was
// due, so a stalled server shows in full instead of slowing the sender (no coordinated omission).
// Requests leave as soon as they are due, checked on every answer as well as on a timer, so that
// they go out one by one at the set spacing rather than in millisecond batches (see `dispatch`);
// the result reports how late the generator itself was (`sendLagP99ms`).
// The connections are opened and used once before measuring: TLS handshakes are not measured.
//
// Why not autocannon's overallRate: it lets each connection send its per-second quota back to
// back and then wait for the next second (bursts, not a steady rate), and its coordinated-omission
// correction records every answer with an expected interval of Math.ceil(1 / rate) = 1 ms (the
// rate is per second, so the interval should be 1000 / rate ms). An answer of R ms then adds R
// synthetic samples, and the few slow answers while the connections do their TLS handshakes at
// the start decide the p99 of a 10 s run. Why not undici: at 10,000+ requests/s its per-request
// work takes most of a core, which the server under test needs on a 2-core machine. This client
// writes one prepared HTTP/1.1 request per connection at a time and reads answers that carry a
// Content-Length (all of the apiserver's non-streaming answers do).
import { spawn } from 'node:child_process';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';

/** Nearest-rank percentile of sorted numbers. */
function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** One keep-alive connection answering one request at a time; `onAnswer(status)` per response. */
function openConnection(url, tlsOptions, onAnswer, onError) {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: url.hostname, port: Number(url.port), servername: url.hostname === '127.0.0.1' ? undefined : url.hostname, ALPNProtocols: ['http/1.1'], ...tlsOptions });
    socket.setNoDelay(true);
    let buf = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.subarray(0, end).toString('latin1');
        const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
        if (!m) {
          socket.destroy(new Error(`answer without Content-Length: ${head.split('\r\n')[0]}`));
          return;
        }
        const total = end + 4 + Number(m[1]);
        if (buf.length < total) return;
        buf = buf.subarray(total);
        onAnswer(Number(head.slice(9, 12)));
      }
    });
    socket.once('secureConnect', () => resolve(socket));
    socket.once('error', (err) => {
      reject(err);
      onError(err);
    });
  });
}

/**
 * GETs `path` at `rate` requests/second over `connections` keep-alive connections for
 * `duration` seconds, after `warmup` seconds at the same rate that are not recorded. Returns the
 * achieved rate (`rps`) and latency percentiles in milliseconds, shaped like the benchmark's rows;
 * with `trace`, also every recorded request as [due time in ms since the epoch, latency] pairs,
 * flattened (`trace`).
 */
export async function openLoopGet({ origin, path, tlsOptions = {}, headers = {}, rate, duration, warmup = 2, connections = 32, trace = false }) {
  const url = new URL(origin);
  const lines = [`GET ${path} HTTP/1.1`, `Host: ${url.host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''];
  const requestBytes = Buffer.from(lines.join('\r\n'));
  const latencies = [];
  // With `trace`: each recorded request's due time (ms since the epoch) and latency, flat.
  const traced = [];
  let non2xx = 0;
  const idle = [];
  const queue = []; // due times of requests waiting for a connection
  let inFlight = 0;
  let settle;
  let failure;
  let lastAnswer = 0;
  // How late the generator itself sent each recorded request (its own timing, not the server's).
  const lags = [];
  let dispatch;

  const conns = [];
  const start = (conn, due) => {
    conn.due = due;
    inFlight++;
    conn.socket.write(requestBytes);
  };
  for (let i = 0; i < connections; i++) {
    const conn = { socket: undefined, due: 0, record: false };
    conn.socket = await openConnection(url, tlsOptions, (status) => {
      inFlight--;
      if (status < 200 || status >= 300) non2xx++;
      if (conn.record) {
        lastAnswer = performance.now();
        latencies.push(lastAnswer - conn.due);
        if (trace) traced.push(conn.due + performance.timeOrigin, lastAnswer - conn.due);
      }
      const next = queue.shift();
      if (next !== undefined) {
        conn.record = next.record;
        start(conn, next.due);
      } else idle.push(conn);
      dispatch?.();
      if (inFlight === 0 && queue.length === 0) settle?.();
    }, (err) => {
      failure ??= err;
      settle?.();
    });
    conns.push(conn);
  }
  try {
    // Use every connection once (first requests pay for lazy work on both sides).
    await new Promise((resolve) => {
      settle = resolve;
      for (const c of conns) start(c, performance.now());
    });
    const interval = 1000 / rate;
    const total = Math.round(rate * (warmup + duration));
    const warmupCount = Math.round(rate * warmup);
    settle = undefined;
    const t0 = performance.now();
    let sent = 0;
    let finished;
    // Sends every request that is due by now. It runs on each timer tick and after each answer:
    // Node's timers fire at best every millisecond, so with the timer alone the requests due
    // within a tick would leave together at its end, up to a millisecond late, and that lateness
    // would count as server latency; answers arrive far more often than that under load.
    dispatch = () => {
      const now = performance.now();
      while (sent < total && t0 + sent * interval <= now) {
        const job = { due: t0 + sent * interval, record: sent >= warmupCount };
        if (job.record) lags.push(now - job.due);
        const conn = idle.pop();
        if (conn) {
          conn.record = job.record;
          start(conn, job.due);
        } else queue.push(job);
        sent++;
      }
      if (sent >= total) {
        dispatch = undefined;
        finished?.();
      }
    };
    await new Promise((resolve) => {
      finished = resolve;
      const tick = () => {
        dispatch?.();
        if (dispatch) setTimeout(tick, Math.max(0, Math.min(1, t0 + sent * interval - performance.now())));
      };
      tick();
    });
    if (inFlight > 0 || queue.length > 0) await new Promise((resolve) => (settle = resolve));
    if (failure) throw new Error(`open-loop GET ${path}: ${failure.message}`);
    // From the first recorded request's due time to the last recorded answer: below `rate` when
    // answers fell behind.
    const measuredMs = lastAnswer - (t0 + warmupCount * interval);
    latencies.sort((a, b) => a - b);
    lags.sort((a, b) => a - b);
    return {
      rate,
      rps: Math.round((latencies.length * 1000) / measuredMs),
      total: latencies.length,
      p50ms: Number(percentile(latencies, 50).toFixed(2)),
      p99ms: Number(percentile(latencies, 99).toFixed(2)),
      p999ms: Number(percentile(latencies, 99.9).toFixed(2)),
      maxms: Number((latencies.at(-1) ?? NaN).toFixed(2)),
      non2xx,
      sendLagP99ms: Number(percentile(lags, 99).toFixed(2)),
      // Every request sent, warm-up ones included: to divide the server's CPU time of the run by.
      sent: total + connections,
      // Any connection error ends the run with an exception instead.
      errors: 0,
      ...(trace ? { trace: traced } : {}),
    };
  } finally {
    for (const c of conns) c.socket.destroy();
  }
}

/**
 * Runs openLoopGet in a child process with a fresh heap, so that the benchmark process's own
 * garbage (autocannon runs, 1 MB LIST answers) cannot pause the load generator and show up as
 * server latency. Same options (tlsOptions must be plain strings/buffers).
 */
export async function openLoopGetInChild(options, { onSpawn } = {}) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child'], { stdio: ['pipe', 'pipe', 'inherit'] });
  onSpawn?.(child.pid);
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c) => (out += c));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.stdin.end(JSON.stringify(options));
  const code = await exited;
  if (code !== 0) throw new Error(`open-loop child exited with ${code}: ${out}`);
  return JSON.parse(out);
}

if (process.argv[2] === '--child' && process.argv[1] === fileURLToPath(import.meta.url)) {
  let input = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) input += chunk;
  const result = await openLoopGet(JSON.parse(input));
  process.stdout.write(JSON.stringify(result));
}
