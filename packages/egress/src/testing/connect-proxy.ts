import * as net from 'node:net';
import * as tls from 'node:tls';

/**
 * A real HTTP CONNECT proxy for tests (node:net / node:tls): listens on TCP, TLS (optionally
 * requiring a client certificate) or a unix socket, tunnels CONNECT requests, and can refuse
 * them with a chosen status. It records the authorities it was asked for.
 */
export interface TestProxy {
  url: string;
  connects: string[];
  close(): Promise<void>;
}

export interface TestProxyOptions {
  tls?: tls.TlsOptions;
  unixPath?: string;
  refuseWith?: number;
}

export async function startConnectProxy(opts: TestProxyOptions = {}): Promise<TestProxy> {
  const connects: string[] = [];
  const sockets = new Set<net.Socket>();
  const onConnection = (client: net.Socket) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      client.removeListener('data', onData);
      const [method, authority] = head.subarray(0, head.indexOf('\r\n')).toString().split(' ');
      connects.push(authority ?? '');
      if (method !== 'CONNECT' || !authority) {
        client.end('HTTP/1.1 405 Method Not Allowed\r\n\r\n');
        return;
      }
      if (opts.refuseWith) {
        client.end(`HTTP/1.1 ${opts.refuseWith} Refused\r\nProxy-Authenticate: Basic realm="test"\r\n\r\n`);
        return;
      }
      const sep = authority.lastIndexOf(':');
      const host = authority.slice(0, sep).replace(/^\[(.*)\]$/, '$1');
      const upstream = net.connect({ host, port: Number(authority.slice(sep + 1)) });
      sockets.add(upstream);
      upstream.on('close', () => sockets.delete(upstream));
      upstream.once('connect', () => {
        client.write('HTTP/1.1 200 Connection established\r\n\r\n');
        const rest = head.subarray(end + 4);
        if (rest.length) upstream.write(rest);
        client.pipe(upstream).pipe(client);
      });
      upstream.on('error', () => {
        if (!client.destroyed) client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      });
    };
    client.on('data', onData);
  };
  const server = opts.tls
    ? tls.createServer(opts.tls, onConnection)
    : net.createServer(onConnection);
  if (opts.tls) server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => {
    if (opts.unixPath) server.listen(opts.unixPath, resolve);
    else server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  const url = opts.unixPath
    ? opts.unixPath
    : `${opts.tls ? 'https' : 'http'}://127.0.0.1:${(address as net.AddressInfo).port}`;
  return {
    url,
    connects,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
