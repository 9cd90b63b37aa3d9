import { createServer } from 'node:net';

/**
 * Ports for servers a test starts and must name before they listen (etcd's peer and client URLs).
 * They come from below Linux's ephemeral range (32768-60999 by default): a port the kernel hands
 * out for listen(0) is also one it hands out as the source port of outgoing connections, so
 * another test's client could take it between our check and etcd's bind.
 */
const firstPort = 20_000;
const lastPort = 32_000;

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A loopback port that was free a moment ago, chosen at random below the ephemeral range. */
export async function freeLoopbackPort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = firstPort + Math.floor(Math.random() * (lastPort - firstPort));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free loopback port in ${firstPort}-${lastPort}`);
}
