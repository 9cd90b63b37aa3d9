import { canonicalTrustBundle, type PemKeyPair } from '@plat/x509';
import { eventually, openWatch, sendList, sendStatus, startScriptedServer, threeCas, type ScriptedServer } from '../test/scripted-server.js';
import { followTrustAnchors } from './follow-trust-anchors.js';

let server: ScriptedServer;
let a: PemKeyPair, b: PemKeyPair;

beforeAll(async () => {
  [server, [a, b]] = await Promise.all([startScriptedServer(), threeCas()]);
});
afterAll(() => server.close());
beforeEach(() => server.nextTest());
// A test that fails half-way must not leave its watch retrying into the next test.
const liveWatches: AbortController[] = [];
afterEach(() => {
  for (const c of liveWatches.splice(0)) c.abort();
});

describe('followTrustAnchors', () => {
  it('resolves with an agent and a secure context on the first anchors, and moves both with each change', async () => {
    let stream: ReturnType<typeof openWatch> | undefined;
    server.handler = (_req, res, url) => {
      if (url.searchParams.get('watch') !== 'true') return sendList(res, '1', [{ name: 'roots', resourceVersion: '1', pem: a.certPem }]);
      stream = openWatch(res);
    };
    const controller = new AbortController();
    liveWatches.push(controller);
    const seen: string[] = [];
    const followed = await followTrustAnchors(server.client(), { name: 'roots' }, { signal: controller.signal, onChange: (x) => void seen.push(x.digest) });
    const first = canonicalTrustBundle([a.certPem]);
    expect(followed.current().digest).toBe(first.digest);
    expect(followed.agent.anchorsDigest).toBe(first.digest);
    const context = followed.secureContext();
    expect(followed.secureContext()).toBe(context);
    await eventually(() => stream !== undefined);
    stream!.bundle('MODIFIED', { name: 'roots', resourceVersion: '2', pem: a.certPem + b.certPem });
    const second = canonicalTrustBundle([a.certPem, b.certPem]);
    await eventually(() => followed.agent.anchorsDigest === second.digest);
    expect(followed.current().digest).toBe(second.digest);
    expect(followed.secureContext()).not.toBe(context);
    expect(seen).toEqual([first.digest, second.digest]);
    controller.abort();
    await expect(followed.done).resolves.toBeUndefined();
    await followed.agent.close();
  });

  it('rejects when the watch fails before any anchors are known', async () => {
    server.handler = (_req, res) => sendStatus(res, 401, 'Unauthorized', 'Unauthorized');
    await expect(followTrustAnchors(server.client(), { name: 'roots' })).rejects.toMatchObject({ name: 'StatusError', code: 401 });
    const controller = new AbortController();
    liveWatches.push(controller);
    controller.abort(new Error('gave up'));
    await expect(followTrustAnchors(server.client(), { name: 'roots' }, { signal: controller.signal })).rejects.toThrow('gave up');
  });
});
