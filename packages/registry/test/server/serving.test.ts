// The listener's lifecycle as the package README describes it: address() is null before listen()
// and again once close() has finished.
import { startCluster } from '../cluster.js';

describe('serving', () => {
  it('answers address() with the listening address, and null after close()', async () => {
    const c = await startCluster();
    const addr = c.server.address();
    expect(addr).toEqual({ host: '127.0.0.1', port: expect.any(Number), url: c.url });
    expect(addr!.url).toBe(`https://127.0.0.1:${addr!.port}`);
    await c.close();
    expect(c.server.address()).toBeNull();
  });
});
