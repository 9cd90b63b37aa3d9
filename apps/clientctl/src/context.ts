import os from 'node:os';
import path from 'node:path';
import {
  DiscoveryClient,
  RestClient,
  buildResources,
  createPrinter,
  emptyKubeConfig,
  loadKubeConfig,
  resolveRestConfig,
  type LoadedKubeConfig,
  type ResourceInfo,
  type ResourcePrinter,
  type RestConfig,
} from '@plat/client';
import { CommandError } from './errors.js';
import type { Flags } from './flags.js';
import type { Io } from './io.js';

export const clientVersion = { major: '0', minor: '1', gitVersion: 'v0.1.0', platform: `${process.platform}/${process.arch}` };

/** Everything a command needs, built lazily from the flags so `--local` never touches the network. */
export class CommandContext {
  warnings = 0;
  reportedVersion = clientVersion.gitVersion;
  private loaded?: LoadedKubeConfig;
  private restConfig?: RestConfig;
  private client?: RestClient;
  private discoveryClient?: DiscoveryClient;

  constructor(
    readonly io: Io,
    readonly flags: Flags,
    readonly command: string,
  ) {}

  get home(): string {
    return this.io.env.HOME || os.homedir();
  }

  kubeconfig(): LoadedKubeConfig {
    if (!this.loaded) {
      const explicit = this.flags.str('kubeconfig');
      try {
        this.loaded = loadKubeConfig({ explicitPath: explicit || undefined, envValue: this.io.env.KUBECONFIG, homeDir: this.home });
      } catch (err) {
        if ((err as { code?: string }).code !== 'ConfigNotFound') throw err;
        // kubectl's config commands show (and write) a missing --kubeconfig file as empty.
        if (!this.command.startsWith('config ')) throw new CommandError(`${(err as Error).message}`);
        this.loaded = { config: emptyKubeConfig(), files: [], defaultFile: explicit, origin: { clusters: new Map(), users: new Map(), contexts: new Map() } };
      }
    }
    return this.loaded;
  }

  config(): RestConfig {
    if (!this.restConfig) {
      const f = this.flags;
      this.restConfig = resolveRestConfig(
        this.kubeconfig(),
        {
          context: f.str('context'),
          cluster: f.str('cluster'),
          user: f.str('user'),
          server: f.str('server'),
          token: f.str('token'),
          username: f.str('username'),
          password: f.str('password'),
          clientCertificate: f.str('client-certificate'),
          clientKey: f.str('client-key'),
          clientCertificateData: f.str('client-certificate-data'),
          clientKeyData: f.str('client-key-data'),
          certificateAuthority: f.str('certificate-authority'),
          insecureSkipTlsVerify: f.changed('insecure-skip-tls-verify') ? f.bool('insecure-skip-tls-verify') : undefined,
          tlsServerName: f.str('tls-server-name'),
          as: f.str('as'),
          asGroups: f.list('as-group'),
          asUid: f.str('as-uid'),
          requestTimeout: f.str('request-timeout') === '0' ? undefined : f.str('request-timeout'),
          disableCompression: f.changed('disable-compression') ? f.bool('disable-compression') : undefined,
          namespace: f.str('namespace'),
        },
        `clientctl/${this.reportedVersion} (${process.platform}/${process.arch})`,
      );
    }
    return this.restConfig;
  }

  /** The namespace of the request: `-n`, else the context's, else `default`. */
  namespace(): string {
    if (this.flags.str('namespace')) return this.flags.str('namespace');
    try {
      return this.config().namespace;
    } catch {
      return 'default';
    }
  }

  rest(): RestClient {
    if (!this.client) {
      this.client = new RestClient(this.config(), {
        onWarning: (text) => {
          this.warnings++;
          this.io.stderr(`Warning: ${text}\n`);
        },
      });
    }
    return this.client;
  }

  discovery(): DiscoveryClient {
    if (!this.discoveryClient) {
      let cacheDir = this.flags.str('cache-dir');
      cacheDir = cacheDir === '$HOME/.plat/cache' ? path.join(this.home, '.plat', 'cache') : cacheDir;
      this.discoveryClient = new DiscoveryClient(this.rest(), { cacheDir });
    }
    return this.discoveryClient;
  }

  printer(operationDefault = ''): ResourcePrinter & { operationDefault: string } {
    const f = this.flags;
    const p = createPrinter({
      output: f.str('output'),
      template: f.str('template'),
      allowMissingTemplateKeys: f.bool('allow-missing-template-keys'),
      showManagedFields: f.bool('show-managed-fields'),
    });
    return Object.assign(p, { operationDefault });
  }

  /** The objects of -f/-R/-k; with `readErrors`, inputs that cannot be read are reported there and skipped. */
  async resources(readErrors?: Error[]): Promise<ResourceInfo[]> {
    return buildResources({
      filenames: this.flags.list('filename'),
      recursive: this.flags.bool('recursive'),
      kustomize: this.flags.str('kustomize') || undefined,
      readStdin: () => this.io.readStdin(),
      readErrors,
    });
  }

  /** `--dry-run` as kubectl reads it; the bare flag means `unchanged`, which is `client` with a warning. */
  dryRun(): 'none' | 'client' | 'server' {
    const v = this.flags.str('dry-run');
    if (v === 'unchanged') {
      this.io.stderr(klogWarning('helpers.go:702', '--dry-run is deprecated and can be replaced with --dry-run=client.'));
      return 'client';
    }
    if (v === 'none' || v === 'client' || v === 'server') return v;
    if (v === 'true') return 'client';
    if (v === 'false') return 'none';
    throw new CommandError(`Invalid dry-run value (${v}). Must be "none", "server", or "client".`);
  }

  async close(): Promise<void> {
    await this.client?.close();
  }
}

/** A klog line as kubectl writes it: `W1122 05:45:05.700807   10687 file.go:N] message` (I, W or E first). */
export function klogLine(severity: 'I' | 'W' | 'E', where: string, message: string): string {
  const d = new Date();
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const stamp = `${p(d.getMonth() + 1)}${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds() * 1000, 6)}`;
  return `${severity}${stamp} ${String(process.pid).padStart(7)} ${where}] ${message}\n`;
}

/** A klog warning line. */
export function klogWarning(where: string, message: string): string {
  return klogLine('W', where, message);
}
