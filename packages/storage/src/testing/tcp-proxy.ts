import { connect, createServer } from 'node:net';
import type { Server, Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of a server (etcd), for fault tests without root: it can hold
 * the server's replies while requests still go through (the server applies a write, its answer
 * is lost for the client until released), delay every reply, or cut every connection.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly pairs = new Set<{ client: Socket; upstream: Socket; held: Buffer[] }>();
  private holding = false;
  /** Added to each reply chunk (a slow network); 0 forwards at once. */
  replyDelayMs = 0;
  port = 0;

  constructor(
    private readonly targetPort: number,
    private readonly targetHost = '127.0.0.1',
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, this.targetHost);
      const pair = { client, upstream, held: [] as Buffer[] };
      this.pairs.add(pair);
      client.pipe(upstream);
      upstream.on('data', (chunk: Buffer) => {
        if (this.holding) pair.held.push(chunk);
        else if (this.replyDelayMs > 0) setTimeout(() => client.write(chunk), this.replyDelayMs).unref();
        else client.write(chunk);
      });
      const close = () => {
        this.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
  }

  /** From now on the server's replies are kept back (requests still reach it). */
  hold(): void {
    this.holding = true;
  }

  /** Sends what was held, in order, and forwards again. */
  release(): void {
    this.holding = false;
    for (const p of this.pairs) {
      for (const chunk of p.held.splice(0)) p.client.write(chunk);
    }
  }

  /** Cuts every open connection (a reset network); new ones are accepted. */
  cut(): void {
    for (const p of [...this.pairs]) {
      p.client.destroy();
      p.upstream.destroy();
    }
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
