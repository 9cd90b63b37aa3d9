import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { Counter, Gauge, type Registry } from 'prom-client';

export interface ConfigReloaderOptions<T> {
  /** The configuration file to watch. */
  path: string;
  /** `authentication` or `authorization`: names the metrics as kube-apiserver does. */
  kind: 'authentication' | 'authorization';
  /** Decodes and validates the file's text; throws (with the field errors) when it is invalid. */
  load: (text: string) => Promise<T>;
  /** Builds the new components from a valid config and swaps them in. */
  apply: (config: T) => Promise<void> | void;
  /** The text the server started with, so an unchanged file is not reloaded. */
  initialText?: string;
  intervalMs?: number;
  registry?: Registry;
  onReload?: (event: { ok: boolean; error?: Error }) => void;
}

const counters = new WeakMap<Registry, { reloads: Counter<'status' | 'apiserver_id_hash'>; last: Gauge<'status' | 'apiserver_id_hash'> }>();

/**
 * Kubernetes' automatic reload of `--authentication-config` / `--authorization-config` (1.30+):
 * the file is polled, a changed and valid version is applied, an invalid one is reported and the
 * previous configuration stays in force. This is the one documented place where a library reads
 * a file on its own; the app starts it.
 */
export class ConfigReloader<T> {
  private lastHash: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly reloads: Counter<'status' | 'apiserver_id_hash'> | undefined;
  private readonly lastTimestamp: Gauge<'status' | 'apiserver_id_hash'> | undefined;
  private readonly idHash = crypto.createHash('sha256').update(String(process.pid)).digest('hex').slice(0, 16);

  constructor(private readonly opts: ConfigReloaderOptions<T>) {
    if (opts.initialText !== undefined) this.lastHash = hash(opts.initialText);
    if (opts.registry) {
      const name = `apiserver_${opts.kind}_config_controller_automatic_reload`;
      let metrics = counters.get(opts.registry);
      if (!metrics || opts.registry.getSingleMetric(`${name}s_total`) === undefined) {
        metrics = {
          reloads: new Counter({
            name: `${name}s_total`,
            help: `Automatic reloads of the ${opts.kind} configuration, by status.`,
            labelNames: ['status', 'apiserver_id_hash'],
            registers: [opts.registry],
          }),
          last: new Gauge({
            name: `${name}_last_timestamp_seconds`,
            help: `Time of the last automatic reload of the ${opts.kind} configuration, by status.`,
            labelNames: ['status', 'apiserver_id_hash'],
            registers: [opts.registry],
          }),
        };
        counters.set(opts.registry, metrics);
      }
      this.reloads = metrics.reloads;
      this.lastTimestamp = metrics.last;
    }
  }

  start(): void {
    const tick = () => {
      this.timer = setTimeout(async () => {
        await this.check();
        tick();
      }, this.opts.intervalMs ?? 1000);
      this.timer.unref();
    };
    tick();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
  }

  /** Reads the file once and reloads when it changed (also what the timer does). */
  check(): Promise<void> {
    if (!this.running) this.running = this.checkOnce().finally(() => (this.running = undefined));
    return this.running;
  }

  private async checkOnce(): Promise<void> {
    let text: string;
    try {
      text = await fs.readFile(this.opts.path, 'utf8');
    } catch (err) {
      // A file being replaced may be briefly missing; report, keep the current config.
      this.record(false, err as Error);
      return;
    }
    const h = hash(text);
    if (h === this.lastHash) return;
    this.lastHash = h;
    try {
      const config = await this.opts.load(text);
      await this.opts.apply(config);
      this.record(true);
    } catch (err) {
      this.record(false, err as Error);
    }
  }

  private record(ok: boolean, error?: Error): void {
    const labels = { status: ok ? 'success' : 'failure', apiserver_id_hash: this.idHash };
    this.reloads?.inc(labels);
    this.lastTimestamp?.set(labels, Date.now() / 1000);
    this.opts.onReload?.({ ok, error });
  }
}

function hash(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}

/** Holds the current instance of a reloadable component; a request keeps the one it started with. */
export class Reloadable<T> {
  constructor(private value: T) {}

  get current(): T {
    return this.value;
  }

  /** Swaps in the next instance and returns the previous one (close it once in-flight work is done). */
  swap(next: T): T {
    const previous = this.value;
    this.value = next;
    return previous;
  }
}
