import type { Duplex } from 'node:stream';
import { DirectDialer, type DialOptions, type Dialer } from './dialer.js';
import { canonicalSelectionName, type EgressSelectionName, type EgressSelectorSpec } from './egress-config.js';
import { EgressConfigError } from './egress-error.js';
import { EgressMetrics } from './egress-metrics.js';
import { GrpcTunnelDialer } from './grpc-tunnel-dialer.js';
import { HttpConnectDialer, type ProxyTlsMaterial } from './http-connect-dialer.js';
import type { Registry } from 'prom-client';

export interface EgressSelectorOptions {
  /** TLS material per selection name (as written in the file), read by the app (see readEgressTlsMaterial). */
  tls?: Record<string, ProxyTlsMaterial>;
  registry?: Registry;
  /** Called once per `master` selection: it is a deprecated alias of `controlplane`. */
  onWarning?: (message: string) => void;
}

/**
 * Hands out one dialer per egress selection. Names without configuration dial directly, which
 * is also Kubernetes' behaviour when no EgressSelectorConfiguration is given.
 */
export class EgressSelector {
  private readonly dialers = new Map<EgressSelectionName, Dialer>();
  private readonly metrics: EgressMetrics;

  constructor(spec: EgressSelectorSpec | undefined, opts: EgressSelectorOptions = {}) {
    this.metrics = new EgressMetrics(opts.registry);
    for (const selection of spec?.egressSelections ?? []) {
      const name = canonicalSelectionName(selection.name);
      if (!name) throw new EgressConfigError(`unknown egress selection name ${JSON.stringify(selection.name)}`);
      if (selection.name === 'master') {
        opts.onWarning?.('egress selection name "master" is deprecated, use "controlplane"');
      }
      const { connection } = selection;
      let dialer: Dialer;
      if (connection.proxyProtocol === 'Direct') {
        dialer = new DirectDialer(name);
      } else if (connection.proxyProtocol === 'HTTPConnect') {
        const transport = connection.transport;
        if (transport?.tcp) {
          dialer = new HttpConnectDialer(name, {
            kind: 'tcp',
            url: new URL(transport.tcp.url),
            tls: opts.tls?.[selection.name] ?? opts.tls?.[name],
          });
        } else if (transport?.uds) {
          dialer = new HttpConnectDialer(name, { kind: 'uds', path: transport.uds.udsName });
        } else {
          throw new EgressConfigError(`egress selection ${JSON.stringify(name)}: HTTPConnect needs a transport`);
        }
      } else {
        const uds = connection.transport?.uds;
        if (!uds) throw new EgressConfigError(`egress selection ${JSON.stringify(name)}: GRPC needs a uds transport`);
        dialer = new GrpcTunnelDialer(name, uds.udsName);
      }
      this.dialers.set(name, this.counted(dialer, connection.proxyProtocol));
    }
  }

  /** The dialer for a selection (`master` maps to `controlplane`). */
  dialer(selection: EgressSelectionName | 'master'): Dialer {
    const name = canonicalSelectionName(selection)!;
    let dialer = this.dialers.get(name);
    if (!dialer) {
      dialer = this.counted(new DirectDialer(name), 'Direct');
      this.dialers.set(name, dialer);
    }
    return dialer;
  }

  close(): void {
    for (const dialer of this.dialers.values()) (dialer as { close?: () => void }).close?.();
  }

  private counted(inner: Dialer, protocol: string): Dialer {
    const metrics = this.metrics;
    const labels = { selection: inner.selection, protocol };
    return {
      selection: inner.selection,
      via: inner.via,
      async dial(host: string, port: number, opts?: DialOptions): Promise<Duplex> {
        metrics.dials.inc(labels);
        try {
          return await inner.dial(host, port, opts);
        } catch (err) {
          metrics.failures.inc(labels);
          throw err;
        }
      },
      close: () => (inner as { close?: () => void }).close?.(),
    } as Dialer;
  }
}
