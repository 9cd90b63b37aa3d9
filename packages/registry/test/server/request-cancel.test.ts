import { Agent, request } from 'undici';
import { openStorage, type Storage } from '@plat/storage';
import { TestEtcd, etcdBinary, hasEtcd } from '@plat/storage/testing';
import { bundle, ctbPath, eventually, startCluster, type TestCluster } from '../cluster.js';

if (!hasEtcd) {
  // Debian's etcd-server package provides it; .ci/run installs it.
  console.warn(`request cancellation tests SKIPPED: ${etcdBinary} is missing (install the etcd-server package)`);
}
const describeEtcd = hasEtcd ? describe : describe.skip;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One storage read as the storage layer saw it: when it started, and how it ended. */
interface Read {
  op: 'get' | 'list';
  outcome?: unknown;
}

describeEtcd('a request against a hanging etcd', () => {
  const etcd = new TestEtcd();
  let storage: Storage;
  let c: TestCluster;
  let h2: Agent;
  const reads: Read[] = [];

  beforeAll(async () => {
    await etcd.start();
    storage = await openStorage({ backend: 'etcd3', servers: [etcd.url], prefix: '/plat-cancel' });
    // The storage as the server calls it, recording every get and list and how it ended.
    const observed = Object.create(storage) as Storage;
    for (const op of ['get', 'list'] as const) {
      const original = storage[op].bind(storage) as (key: string, opts: unknown) => Promise<unknown>;
      (observed as unknown as Record<string, unknown>)[op] = async (key: string, opts: unknown) => {
        const read: Read = { op };
        reads.push(read);
        try {
          const result = await original(key, opts);
          read.outcome = 'answered';
          return result;
        } catch (err) {
          read.outcome = err;
          throw err;
        }
      };
    }
    c = await startCluster({ storage: observed });
    expect((await c.req('admin', 'POST', ctbPath, { body: bundle('held', c.anchorPem) })).status).toBe(201);
    const admin = c.clientCertificate('admin');
    h2 = new Agent({ allowH2: true, connect: { ca: c.ca.certPem, cert: admin.certPem, key: admin.keyPem, servername: 'localhost' } });
  }, 30_000);

  afterAll(async () => {
    etcd.resume();
    await h2?.close();
    await c?.close();
    await storage?.close();
    await etcd.destroy();
  });

  async function held(path: string, dispatcher: Agent, op: Read['op'], abort: (ac: AbortController) => void): Promise<{ read: Read; response: unknown }> {
    reads.length = 0;
    await etcd.pause();
    try {
      const ac = new AbortController();
      const response = request(`${c.url}${path}`, { dispatcher, signal: ac.signal }).then(
        async (res) => ({ status: res.statusCode, body: await res.body.text() }),
        (err: unknown) => err,
      );
      await eventually(() => reads.length > 0);
      expect(reads.map((r) => r.op)).toEqual([op]);
      await sleep(100);
      expect(reads[0]!.outcome).toBeUndefined();
      abort(ac);
      // etcd is still frozen: only a cancelled call can end the read (etcd3's own deadline is 10 s,
      // so waiting 8 s still tells them apart on a loaded machine).
      await eventually(() => reads[0]!.outcome !== undefined, 8000);
      return { read: reads[0]!, response: await response };
    } finally {
      etcd.resume();
    }
  }

  it.each([
    ['get', `${ctbPath}/held`, 'HTTP/1.1 (the socket closes)'],
    ['list', ctbPath, 'HTTP/1.1 (the socket closes)'],
    ['get', `${ctbPath}/held`, 'HTTP/2 (the stream is reset)'],
  ] as const)('cancels the storage %s of %s when the client goes away over %s', async (op, path, how) => {
    const dispatcher = how.startsWith('HTTP/2') ? h2 : c.agent('admin');
    const { read } = await held(path, dispatcher, op, (ac) => ac.abort());
    expect(read.outcome).toEqual(new Error('client closed the connection'));
  }, 20_000);

  it('cancels the storage get when the request deadline passes, and answers 504', async () => {
    const { read, response } = await held(`${ctbPath}/held?timeout=1s`, c.agent('admin'), 'get', () => undefined);
    expect((read.outcome as Error).message).toContain('context deadline exceeded');
    expect(response).toMatchObject({ status: 504 });
  }, 20_000);

  it('serves again once etcd is back', async () => {
    expect((await c.req('admin', 'GET', `${ctbPath}/held`)).status).toBe(200);
  });
});
