import { Agent, request } from 'undici';
import { adminCredentials, startApiServer, tempDir, type StartedApiServer } from './apiserver-process.mjs';

export const resourcePath = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';

/** What a request got back: its status code and JSON body, or the failure that took its answer. */
export type Reply = { status: number; body: Record<string, unknown> | undefined; text: string } | { error: string };

/**
 * One apiserver replica as a process of the real binary, on a fixed port and data dir, so a
 * SIGKILL and restart brings the same server back where clients look for it.
 */
export class Replica {
  private server: StartedApiServer | undefined;
  private agent: Agent | undefined;
  port = 0;

  constructor(
    readonly index: number,
    private readonly bundle: string,
    private readonly args: string[],
    readonly dataDir = tempDir('plat-chaos-replica-'),
  ) {}

  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.server = await startApiServer({ bundle: this.bundle, dataDir: this.dataDir, port: this.port, args: this.args, timeoutMs: 60_000 });
    this.port = this.server.port;
    this.agent ??= new Agent({ connect: { ...adminCredentials(this.server.kubeconfig), servername: 'localhost' }, headersTimeout: 90_000, bodyTimeout: 0 });
  }

  /** Stops the server (SIGTERM: a clean shutdown). */
  async shutdown(): Promise<void> {
    await this.server?.stop('SIGTERM');
  }

  /** SIGKILL (a crash), then the same server again. */
  async killAndRestart(downMs: number): Promise<void> {
    await this.server?.stop('SIGKILL');
    await new Promise((r) => setTimeout(r, downMs));
    await this.start();
  }

  async request(method: string, path: string, opts: { body?: unknown; signal?: AbortSignal } = {}): Promise<Reply> {
    try {
      const res = await request(`${this.url}${path}`, {
        method: method as 'GET',
        dispatcher: this.agent,
        headers: opts.body ? { 'content-type': 'application/json' } : {},
        body: opts.body ? JSON.stringify(opts.body) : undefined,
        signal: opts.signal,
      });
      const text = await res.body.text();
      let body: Record<string, unknown> | undefined;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        body = undefined;
      }
      return { status: res.statusCode, body, text };
    } catch (err) {
      return { error: (err as Error).message };
    }
  }

  /** Opens a streaming GET (a watch); the caller reads and destroys the body. */
  async stream(path: string, signal: AbortSignal): Promise<Awaited<ReturnType<typeof request>>> {
    return request(`${this.url}${path}`, { dispatcher: this.agent, signal });
  }

  async ready(): Promise<boolean> {
    const r = await this.request('GET', '/readyz');
    return 'status' in r && r.status === 200;
  }

  /** The series of one metric in /metrics, by their label text (e.g. `{layer="http"}`). */
  async metric(name: string): Promise<Record<string, number>> {
    const r = await this.request('GET', '/metrics');
    const out: Record<string, number> = {};
    if (!('status' in r) || r.status !== 200) return out;
    for (const line of r.text.split('\n')) {
      if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
      const [series, value] = line.slice(name.length).split(' ');
      out[series || '{}'] = Number(value);
    }
    return out;
  }

  /** /readyz?verbose, for the report. */
  async readyzText(): Promise<string> {
    const r = await this.request('GET', '/readyz?verbose');
    return 'status' in r ? `${r.status} ${r.text}` : r.error;
  }

  async stop(): Promise<void> {
    await this.server?.stop('SIGKILL');
    await this.agent?.close().catch(() => undefined);
  }

  logs(): string {
    return `${this.server?.stdout() ?? ''}${this.server?.stderr() ?? ''}`;
  }
}
