import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import type { IncomingRequest } from './context.js';
import { requestHeader } from './request-header.js';

const names = ['accept', 'user-agent', 'authorization', 'traceparent', 'tracestate', 'content-length', 'transfer-encoding'] as const;

/** Sends `lines` as one request's header lines to a real node:http server; resolves with what it read. */
function readByServer(port: number, lines: string[]) {
  return new Promise<{ node: (string | undefined)[]; ours: (string | undefined)[] }>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', reject);
    socket.write(`GET / HTTP/1.1\r\nHost: x\r\n${lines.map((l) => `${l}\r\n`).join('')}Connection: close\r\n\r\n`);
    socket.resume();
    socket.on('close', () => resolve(last));
  });
}

let last: { node: (string | undefined)[]; ours: (string | undefined)[] };
let server: http.Server;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const ours = names.map((n) => requestHeader(req as unknown as IncomingRequest, n));
    const node = names.map((n) => {
      const v = req.headers[n];
      return Array.isArray(v) ? v.join(', ') : v;
    });
    last = { node, ours };
    res.end();
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
});

afterAll(() => new Promise((r) => server.close(r)));

describe('requestHeader', () => {
  it("answers as node's req.headers for any spelling and repetition of the headers it reads (fast-check)", async () => {
    const port = (server.address() as AddressInfo).port;
    const listed = fc.constantFrom('accept', 'Accept', 'ACCEPT', 'user-agent', 'User-Agent', 'USER-agent', 'authorization', 'Authorization', 'traceparent', 'TraceParent', 'tracestate', 'X-Other', 'Accept-Encoding');
    // Any letter case of a name read, and names of the same length one token character away
    // (`Acc^pt`, `user_agent`: characters whose code is a letter's plus or minus 0x20). Not the
    // headers that announce a body: any value of theirs would make a request Node refuses.
    const free = names.filter((n) => n !== 'content-length' && n !== 'transfer-encoding');
    const anyCase = fc.tuple(fc.constantFrom(...free), fc.array(fc.boolean(), { minLength: 20, maxLength: 20 })).map(([n, up]) => [...n].map((c, i) => (up[i] ? c.toUpperCase() : c)).join(''));
    const nearMiss = fc
      .tuple(fc.constantFrom(...free), fc.nat(), fc.constantFrom('^', '_', '`', '~', '|', '!', '#', '0', 'A', 'z'))
      .map(([n, at, c]) => `${n.slice(0, at % n.length)}${c}${n.slice((at % n.length) + 1)}`);
    const spelling = fc.oneof(listed, anyCase, nearMiss);
    const value = fc.stringMatching(/^[a-zA-Z0-9/*;=.,+ -]{0,12}$/).map((v) => v.trim());
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(spelling, value), { maxLength: 6 }), async (headers) => {
        const got = await readByServer(
          port,
          headers.map(([n, v]) => `${n}: ${v}`),
        );
        expect(got.ours).toEqual(got.node);
      }),
      { numRuns: 120 },
    );
  });

  it("answers as node's req.headers for the headers that announce a body (unread-body.ts)", async () => {
    const port = (server.address() as AddressInfo).port;
    for (const lines of [['Content-Length: 0'], ['content-length:  0 '], ['TRANSFER-ENCODING: chunked'], ['Transfer-Encoding: gzip', 'transfer-encoding: chunked'], []]) {
      const got = await readByServer(port, lines);
      expect(got.ours).toEqual(got.node);
    }
  });

  it('reads a request without raw headers (the loopback requests) by name', () => {
    const req = { headers: { accept: 'application/json', 'user-agent': 'loopback' } } as unknown as IncomingRequest;
    expect(requestHeader(req, 'accept')).toBe('application/json');
    expect(requestHeader(req, 'user-agent')).toBe('loopback');
    expect(requestHeader(req, 'authorization')).toBeUndefined();
  });
});
