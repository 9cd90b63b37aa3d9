import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import fc from 'fast-check';
import { Registry } from 'prom-client';
import { createAuditMetrics, newPolicyRuleEvaluator, type AuditBackend, type AuditEvent } from '@plat/audit';
import { AuthenticationError, type Authenticator, type UserInfo } from '@plat/auth';
import { ServerRequestContext, splitRequestTarget, type Handler, type RequestContext } from '../context.js';
import { silentLogger } from '../logger.js';
import { createServerMetrics } from '../metrics.js';
import { ServerLifecycle } from '../serving.js';
import { auditFailedAuthentication, readClientHeaders, sourceIPs, withAudit, type ServerAudit } from './audit.js';
import { withAuthentication } from './authentication.js';
import { withPanicRecovery } from './panic-recovery.js';
import { withRequestAccounting } from './request-accounting.js';

/** A backend that keeps what it is given, in memory (what a test reads back). */
function memoryBackend(): AuditBackend & { events: AuditEvent[] } {
  const events: AuditEvent[] = [];
  return { name: 'memory', events, processEvents: (evs) => (events.push(...evs), true), shutdown: async () => undefined };
}

/** The filter's configuration with these policy rules, its metrics on `registry`. */
function auditWithRules(backend: AuditBackend, rules: Parameters<typeof newPolicyRuleEvaluator>[0]['rules'], registry = new Registry()): ServerAudit {
  return { evaluator: newPolicyRuleEvaluator({ rules }), backend, metrics: createAuditMetrics(registry) };
}

function serverAudit(backend: AuditBackend, level: 'Metadata' | 'RequestResponse' = 'RequestResponse'): ServerAudit {
  return auditWithRules(backend, [{ level: 'None', nonResourceURLs: ['/healthz'] }, { level }]);
}

// The filter's place and its annotation points (k8s.io/apiserver pkg/endpoints/filters/audit_test.go
// TestAudit, authorization_test.go TestAuditAnnotation). The last stage (ResponseComplete, Panic)
// is sent by request accounting and panic recovery, so requests go through those filters as the
// server orders them, on a real HTTP server.

interface Chain {
  /** One request; resolves with its status code once the request has counted as finished. */
  get(opts?: { headers?: Record<string, string>; abortAfterMs?: number }): Promise<number | 'aborted'>;
  lifecycle: ServerLifecycle;
  close(): Promise<void>;
}

const chains: Chain[] = [];
afterEach(async () => {
  await Promise.all(chains.splice(0).map((c) => c.close()));
});

/** request accounting → panic recovery → audit → `handler`; `prepare` fills in what the request info and authentication filters would. */
async function auditChain(audit: ServerAudit, handler: Handler, prepare: (ctx: RequestContext, req: IncomingMessage) => void = () => undefined): Promise<Chain> {
  const lifecycle = new ServerLifecycle();
  const chain = withRequestAccounting(lifecycle, createServerMetrics(new Registry()), new Set())(withPanicRecovery(silentLogger)(withAudit(audit)(handler)));
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const ctx = new ServerRequestContext(req, res, req.method!, splitRequestTarget(req.url!), 'id-1', process.hrtime.bigint());
    ctx.info = { verb: 'get', isResourceRequest: true, apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1', resource: 'clustertrustbundles', path: '/apis/certificates.plat.io/v1alpha1/clustertrustbundles' } as RequestContext['info'];
    ctx.user = { username: 'alice', groups: ['system:authenticated'] };
    prepare(ctx, req);
    void chain(ctx);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const finished = async () => {
    for (let i = 0; lifecycle.inFlight > 0; i++) {
      if (i > 500) throw new Error('the request never finished');
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  };
  const c: Chain = {
    lifecycle,
    async get({ headers = {}, abortAfterMs } = {}) {
      const code = await new Promise<number | 'aborted'>((resolve, reject) => {
        const r = request({ port, host: '127.0.0.1', path: '/apis/certificates.plat.io/v1alpha1/clustertrustbundles', headers }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        });
        r.on('error', (err) => (abortAfterMs === undefined ? reject(err) : resolve('aborted')));
        r.end();
        if (abortAfterMs !== undefined) setTimeout(() => r.destroy(), abortAfterMs);
      });
      await finished();
      return code;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  chains.push(c);
  return c;
}

describe('audit filter stages', () => {
  it('records Panic with a 500 status when the handler throws or rejects, before recovery answers 500', async () => {
    for (const handler of [
      async () => {
        throw new TypeError('boom');
      },
      () => {
        throw new TypeError('boom');
      },
    ] as Handler[]) {
      const backend = memoryBackend();
      const chain = await auditChain(serverAudit(backend, 'Metadata'), handler);
      expect(await chain.get()).toBe(500);
      expect(backend.events.map((e) => e.stage)).toEqual(['RequestReceived', 'Panic']);
      expect(backend.events[1]!.responseStatus).toEqual({ metadata: {}, code: 500, status: 'Failure', reason: 'InternalError', message: "APIServer panic'd: boom" });
      expect(backend.events[0]!.sourceIPs).toEqual(['127.0.0.1']);
    }
  });

  it('records ResponseStarted for a long-running request when its head goes out, then ResponseComplete', async () => {
    const backend = memoryBackend();
    const stagesAtHead: string[] = [];
    const chain = await auditChain(
      serverAudit(backend, 'Metadata'),
      async (ctx) => {
        ctx.res.writeHead(200);
        stagesAtHead.push(...backend.events.map((e) => e.stage));
        ctx.res.end();
      },
      (ctx) => {
        ctx.longRunning = true;
        ctx.info = { ...ctx.info, verb: 'watch' };
      },
    );
    expect(await chain.get()).toBe(200);
    expect(stagesAtHead).toEqual(['RequestReceived', 'ResponseStarted']);
    expect(backend.events.map((e) => [e.stage, e.responseStatus?.code])).toEqual([
      ['RequestReceived', undefined],
      ['ResponseStarted', 200],
      ['ResponseComplete', 200],
    ]);
  });

  it('sends ResponseComplete with the status written, once the handler is done and before the request counts as finished', async () => {
    const backend = memoryBackend();
    let finishedAtComplete: number | undefined;
    const chain = await auditChain(serverAudit(backend, 'Metadata'), async (ctx) => {
      ctx.res.writeHead(404);
      ctx.res.end();
      await new Promise((resolve) => setTimeout(resolve, 20));
    });
    const processEvents = backend.processEvents;
    backend.processEvents = (evs) => {
      if (evs.some((e) => e.stage === 'ResponseComplete')) finishedAtComplete = chain.lifecycle.inFlight;
      return processEvents(evs);
    };
    expect(await chain.get()).toBe(404);
    expect(backend.events.map((e) => [e.stage, e.responseStatus?.code])).toEqual([
      ['RequestReceived', undefined],
      ['ResponseComplete', 404],
    ]);
    expect(finishedAtComplete).toBe(1);
  });

  it('waits for a backend that must wait: the handler after RequestReceived is stored, the request finished after ResponseComplete is', async () => {
    const stored: string[] = [];
    const releases: Array<() => void> = [];
    const backend: AuditBackend = {
      name: 'slow',
      processEvents: (evs) =>
        new Promise<boolean>((resolve) => {
          releases.push(() => {
            stored.push(...evs.map((e) => e.stage));
            resolve(true);
          });
        }),
      shutdown: async () => undefined,
    };
    const ran: string[] = [];
    const chain = await auditChain(serverAudit(backend, 'Metadata'), async (ctx) => {
      ran.push(`handler after ${stored.join(',')}`);
      ctx.res.end();
    });
    const answered = chain.get();
    const release = async () => {
      for (let i = 0; releases.length === 0; i++) {
        if (i > 500) throw new Error('no event was sent');
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      releases.shift()!();
    };
    await release();
    await release();
    expect(await answered).toBe(200);
    expect(ran).toEqual(['handler after RequestReceived']);
    expect(stored).toEqual(['RequestReceived', 'ResponseComplete']);
  });

  it('refuses the request with 500 and no later stage when its event cannot be stored (blocking-strict)', async () => {
    const registry = new Registry();
    const backend: AuditBackend = { name: 'full', processEvents: () => false, shutdown: async () => undefined };
    let served = false;
    const audit = auditWithRules(backend, [{ level: 'Metadata' }], registry);
    const chain = await auditChain(audit, async (ctx) => {
      served = true;
      ctx.res.end();
    });
    expect(await chain.get()).toBe(500);
    expect(served).toBe(false);
    expect(await registry.getSingleMetricAsString('apiserver_audit_requests_rejected_total')).toMatch(/^apiserver_audit_requests_rejected_total 1$/m);
  });

  it('hands a request the policy leaves out (None) on without an audit record', async () => {
    const backend = memoryBackend();
    const seen: unknown[] = [];
    const chain = await auditChain(serverAudit(backend, 'Metadata'), async (ctx) => {
      seen.push(ctx.audit);
      ctx.res.end();
    }, (ctx) => {
      ctx.info = { ...ctx.info, isResourceRequest: false, path: '/healthz' };
    });
    expect(await chain.get()).toBe(200);
    expect(seen).toEqual([undefined]);
    expect(backend.events).toEqual([]);
  });

  it("stamps requestReceivedTimestamp with the wall clock of the request's monotonic start time", async () => {
    const backend = memoryBackend();
    const before = Date.now();
    const chain = await auditChain(
      serverAudit(backend, 'Metadata'),
      async (ctx) => void ctx.res.end(),
      // As serving.ts sets it: process.hrtime, 50 ms before the filter runs.
      (ctx) => ((ctx as { startTime: bigint }).startTime = process.hrtime.bigint() - 50_000_000n),
    );
    await chain.get();
    const received = Date.parse(backend.events[0]!.requestReceivedTimestamp);
    const stage = Date.parse(backend.events[1]!.stageTimestamp);
    expect(received).toBeGreaterThanOrEqual(before - 50 - 5);
    expect(received).toBeLessThanOrEqual(before - 50 + 1000);
    expect(stage - received).toBeGreaterThanOrEqual(49);
  });

  it("evaluates the policy for each request's own user and keeps each user's fields apart", async () => {
    const backend = memoryBackend();
    const audit = auditWithRules(backend, [{ level: 'RequestResponse', users: ['alice'] }, { level: 'None', userGroups: ['quiet'] }, { level: 'Metadata' }]);
    const users = [
      { username: 'alice', groups: ['system:authenticated'] },
      { username: 'bob', groups: ['system:authenticated'] },
      { username: 'carol', groups: ['quiet'] },
      { username: 'alice', uid: 'u-2', groups: ['admins'] },
    ];
    const chain = await auditChain(audit, async (ctx) => void ctx.res.end(), (ctx, req) => (ctx.user = users[Number(req.headers['x-user'])]));
    await Promise.all(users.map((_, i) => chain.get({ headers: { 'x-user': String(i) } })));
    const completed = backend.events.filter((e) => e.stage === 'ResponseComplete');
    expect(completed.map((e) => [e.user, e.level]).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)))).toEqual([
      [{ username: 'alice', groups: ['system:authenticated'] }, 'RequestResponse'],
      [{ username: 'alice', uid: 'u-2', groups: ['admins'] }, 'RequestResponse'],
      [{ username: 'bob', groups: ['system:authenticated'] }, 'Metadata'],
    ]);
  });

  it('decides again for another frozen user or request info, and for the same unfrozen one changed in place', async () => {
    const backend = memoryBackend();
    const audit = auditWithRules(backend, [{ level: 'RequestResponse', users: ['alice'] }, { level: 'None', verbs: ['list'] }, { level: 'Metadata' }]);
    let next: { info: RequestContext['info']; user: UserInfo } | undefined;
    const chain = await auditChain(audit, async (ctx) => void ctx.res.end(), (ctx) => {
      ctx.info = next!.info;
      ctx.user = next!.user;
    });
    const base = { verb: 'get', isResourceRequest: true, apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1', resource: 'clustertrustbundles', path: '/apis/certificates.plat.io/v1alpha1/clustertrustbundles' } as RequestContext['info'];
    const alice = Object.freeze({ username: 'alice', groups: Object.freeze(['system:authenticated']) }) as UserInfo;
    const bob = Object.freeze({ username: 'bob', groups: Object.freeze(['system:authenticated']) }) as UserInfo;
    const getInfo = Object.freeze({ ...base });
    const listInfo = Object.freeze({ ...base, verb: 'list' });
    const thawed = { ...base, name: 'one' };
    const serve = (info: RequestContext['info'], user: UserInfo) => {
      next = { info, user };
      return chain.get();
    };
    await serve(getInfo, alice);
    await serve(getInfo, alice);
    await serve(getInfo, bob);
    await serve(listInfo, bob);
    await serve(getInfo, bob);
    await serve(thawed, bob);
    thawed.name = 'two';
    thawed.verb = 'list';
    await serve(thawed, bob);
    thawed.verb = 'get';
    await serve(thawed, bob);
    const completed = backend.events.filter((e) => e.stage === 'ResponseComplete');
    expect(completed.map((e) => [e.user.username, e.verb, e.level, e.objectRef?.name])).toEqual([
      ['alice', 'get', 'RequestResponse', undefined],
      ['alice', 'get', 'RequestResponse', undefined],
      ['bob', 'get', 'Metadata', undefined],
      ['bob', 'get', 'Metadata', undefined],
      ['bob', 'get', 'Metadata', 'one'],
      ['bob', 'get', 'Metadata', 'two'],
    ]);
  });

  it("shares a frozen user's audited copy and an unchanged object reference between requests, frozen, and copies other users", async () => {
    const backend = memoryBackend();
    let next: { user: UserInfo; info?: Partial<RequestContext['info']> } | undefined;
    const chain = await auditChain(serverAudit(backend, 'Metadata'), async (ctx) => void ctx.res.end(), (ctx) => {
      ctx.user = next!.user;
      ctx.info = { ...ctx.info, ...next!.info };
    });
    const serve = (user: UserInfo, info?: Partial<RequestContext['info']>) => {
      next = { user, info };
      return chain.get();
    };
    const shared = Object.freeze({ username: 'alice', groups: Object.freeze(['system:authenticated']) }) as UserInfo;
    const mutable = { username: 'bob', groups: ['system:authenticated'] };
    await serve(shared);
    await serve(shared);
    await serve(mutable);
    const [a, b, c] = backend.events.filter((e) => e.stage === 'ResponseComplete');
    expect(b!.user).toBe(a!.user);
    expect(Object.isFrozen(a!.user) && Object.isFrozen(a!.user.groups)).toBe(true);
    expect(a!.user).toEqual({ username: 'alice', groups: ['system:authenticated'] });
    expect(a!.user.groups).not.toBe(shared.groups);
    expect(c!.user).toEqual({ username: 'bob', groups: ['system:authenticated'] });
    expect(Object.isFrozen(c!.user)).toBe(false);
    mutable.groups.push('later');
    expect(c!.user.groups).toEqual(['system:authenticated']);
    expect(b!.objectRef).toBe(a!.objectRef);
    expect(Object.isFrozen(a!.objectRef)).toBe(true);
    expect(a!.objectRef).toEqual({ resource: 'clustertrustbundles', apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1' });
    // Another object (a name, a namespace) gets a reference of its own.
    await serve(shared, { name: 'b', namespace: 'ns' });
    expect(backend.events.at(-1)!.objectRef).toEqual({ resource: 'clustertrustbundles', namespace: 'ns', name: 'b', apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1' });
  });

  it('records a faked success when the handler wrote nothing because the client went away', async () => {
    const backend = memoryBackend();
    const chain = await auditChain(serverAudit(backend, 'Metadata'), async (ctx) => {
      await new Promise<void>((resolve) => ctx.res.on('close', () => resolve()));
    });
    expect(await chain.get({ abortAfterMs: 30 })).toBe('aborted');
    expect(backend.events.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
    expect(backend.events[1]!.responseStatus).toEqual({ metadata: {}, code: 200, status: 'Success', message: 'Connection closed early' });
  });
});

// k8s.io/apiserver pkg/endpoints/filters/audit_test.go TestFailedAuthnAudit: a refused request is
// recorded once, at ResponseStarted, with the 401 and the credentials tried, and without a user.
describe('failed-authentication audit', () => {
  async function serve(authenticator: Authenticator, audit: ServerAudit, headers: Record<string, string>) {
    const inner: string[] = [];
    const filter = withAuthentication(authenticator, silentLogger, auditFailedAuthentication(audit))(async (ctx) => {
      inner.push(ctx.user!.username);
      ctx.res.end('ok');
    });
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const ctx = new ServerRequestContext(req, res, req.method!, splitRequestTarget(req.url!), 'audit-id-1', process.hrtime.bigint());
      ctx.info = { verb: 'get', isResourceRequest: true, apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1', resource: 'clustertrustbundles', name: 'a', path: '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/a' } as RequestContext['info'];
      void filter(ctx);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const code = await new Promise<number>((resolve, reject) => {
      request({ port, host: '127.0.0.1', path: '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/a', headers }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      }).on('error', reject).end();
    });
    await new Promise((resolve) => server.close(resolve));
    return { code, inner };
  }

  it('records a refused bearer token at ResponseStarted without a user or the token', async () => {
    const backend = memoryBackend();
    const refuse: Authenticator = { authenticate: async () => { throw new AuthenticationError('invalid bearer token'); } };
    const { code, inner } = await serve(refuse, serverAudit(backend, 'Metadata'), { authorization: 'Bearer secret-token-value', 'user-agent': 'kubectl/v1.32' });
    expect(code).toBe(401);
    expect(inner).toEqual([]);
    expect(backend.events).toHaveLength(1);
    const ev = backend.events[0]!;
    expect(ev).toMatchObject({ stage: 'ResponseStarted', level: 'Metadata', auditID: 'audit-id-1', verb: 'get', user: {}, sourceIPs: ['127.0.0.1'], userAgent: 'kubectl/v1.32' });
    expect(ev.objectRef).toEqual({ resource: 'clustertrustbundles', name: 'a', apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1' });
    expect(ev.responseStatus).toEqual({ metadata: {}, message: 'Authentication failed, attempted: bearer', code: 401 });
    expect(JSON.stringify(ev)).not.toContain('secret-token-value');
  });

  it('records nothing of its own for an authenticated request, nor for a refused one the policy leaves out', async () => {
    const backend = memoryBackend();
    const admit: Authenticator = { authenticate: async () => ({ user: { username: 'alice', groups: [] } }) };
    expect(await serve(admit, serverAudit(backend, 'Metadata'), {})).toEqual({ code: 200, inner: ['alice'] });
    expect(backend.events).toEqual([]);
    const none = auditWithRules(backend, [{ level: 'None' }]);
    expect((await serve({ authenticate: async () => null }, none, {})).code).toBe(401);
    expect(backend.events).toEqual([]);
  });
});

describe('source IPs of an event (X-Forwarded-For, X-Real-Ip, the peer)', () => {
  const ctxWith = (headers: Record<string, string>, peer?: string) => ({ req: { headers, socket: { remoteAddress: peer } } }) as unknown as RequestContext;

  it('lists the forwarded chain, then X-Real-Ip, then the peer, each once, as utilnet.SourceIPs', () => {
    expect(sourceIPs(ctxWith({ 'x-forwarded-for': '203.0.113.7, 10.0.0.2', 'x-real-ip': '10.0.0.2' }, '::ffff:127.0.0.1'))).toEqual(['203.0.113.7', '10.0.0.2', '127.0.0.1']);
    expect(sourceIPs(ctxWith({}, '::1'))).toEqual(['::1']);
    // What is not an IP address is left out: the header is the client's to write.
    expect(sourceIPs(ctxWith({ 'x-forwarded-for': '<script>, unknown, 198.51.100.1' }, '127.0.0.1'))).toEqual(['198.51.100.1', '127.0.0.1']);
  });

  it('reads User-Agent, X-Forwarded-For and X-Real-Ip from the raw headers, the first of each, any case (Go Header.Get)', () => {
    const out = { userAgent: undefined, forwardedFor: undefined, realIP: undefined };
    const req = (rawHeaders: string[]) => ({ rawHeaders, headers: {} }) as unknown as RequestContext['req'];
    expect(readClientHeaders(req(['Host', 'h', 'USER-AGENT', 'kubectl/v1.32', 'x-forwarded-for', '203.0.113.7', 'X-Forwarded-For', '10.0.0.9', 'X-Real-IP', '10.0.0.2', 'User-Agent', 'second']), out)).toEqual({
      userAgent: 'kubectl/v1.32',
      forwardedFor: '203.0.113.7',
      realIP: '10.0.0.2',
    });
    // The same object, cleared for the next request.
    expect(readClientHeaders(req(['Host', 'h', 'X-Real-Ix', 'no', 'User-Agenx', 'no']), out)).toEqual({ userAgent: undefined, forwardedFor: undefined, realIP: undefined });
    // Requests without raw headers (the server's loopback requests): by name.
    const loopback = { headers: { 'user-agent': 'plat-apiserver', 'x-real-ip': ['10.0.0.3', '10.0.0.4'] } } as unknown as RequestContext['req'];
    expect(readClientHeaders(loopback, out)).toEqual({ userAgent: 'plat-apiserver', forwardedFor: undefined, realIP: '10.0.0.3' });
  });

  it("gives a direct client's list again on the same connection, frozen, and another connection its own", () => {
    const connection = { remoteAddress: '::ffff:10.1.2.3' };
    const onConnection = () => ({ req: { headers: {}, socket: connection } }) as unknown as RequestContext;
    const first = sourceIPs(onConnection());
    expect(first).toEqual(['10.1.2.3']);
    expect(sourceIPs(onConnection())).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(sourceIPs(ctxWith({}, '::ffff:10.1.2.3'))).toEqual(['10.1.2.3']);
    expect(sourceIPs(ctxWith({}, '10.9.9.9'))).toEqual(['10.9.9.9']);
    expect(sourceIPs(ctxWith({}, 'not-an-ip'))).toEqual([]);
    expect(sourceIPs(ctxWith({}, undefined))).toEqual([]);
    // Headers on the same connection still count (a proxy's connection carries many clients).
    expect(sourceIPs({ req: { headers: { 'x-forwarded-for': '10.7.7.7' }, socket: connection } } as unknown as RequestContext)).toEqual(['10.7.7.7', '10.1.2.3']);
    expect(sourceIPs(onConnection())).toBe(first);
  });

  it("shares one list between a client's connections, so that its events' pieces are the same by identity", () => {
    const socketFrom = (remoteAddress: string | undefined) => ({ req: { headers: {}, socket: { remoteAddress } } }) as unknown as RequestContext;
    const first = sourceIPs(socketFrom('::ffff:10.4.4.4'));
    expect(sourceIPs(socketFrom('::ffff:10.4.4.4'))).toBe(first);
    const other = sourceIPs(socketFrom('10.5.5.5'));
    expect(other).toEqual(['10.5.5.5']);
    expect(other).not.toBe(first);
    expect(Object.isFrozen(other)).toBe(true);
    // Connections without an address (in-memory streams) share one empty list.
    expect(sourceIPs(socketFrom(undefined))).toBe(sourceIPs(socketFrom(undefined)));
    expect(sourceIPs(socketFrom(undefined))).toEqual([]);
  });

  it('stays bounded and never throws for any header (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2000 }), fc.string({ maxLength: 100 }), fc.option(fc.string({ maxLength: 50 })), (forwarded, real, peer) => {
        const ips = sourceIPs(ctxWith({ 'x-forwarded-for': forwarded, 'x-real-ip': real }, peer ?? undefined));
        expect(ips.length).toBeLessThanOrEqual(16);
        expect(new Set(ips).size).toBe(ips.length);
        expect(ips.every((ip) => isIP(ip) !== 0)).toBe(true);
      }),
      { numRuns: 500 },
    );
    const many = Array.from({ length: 10_000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`).join(',');
    expect(sourceIPs(ctxWith({ 'x-forwarded-for': many }, '127.0.0.1'))).toHaveLength(16);
  });
});

