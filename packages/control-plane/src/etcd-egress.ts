import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { EgressConfigError, type Dialer } from '@plat/egress';
import type { ServerLogger } from '@plat/server';

/**
 * The etcd client through the `etcd` egress selection.
 *
 * The etcd3 client (1.1.2, on @grpc/grpc-js) takes host names and channel options only: grpc-js
 * has no hook for a caller-supplied socket, so the dialer cannot be plugged in directly. Instead
 * each etcd server gets a local forwarder: a unix socket in a fresh 0700 directory whose every
 * connection is dialed through the egress dialer to that server and piped both ways. The etcd
 * client is pointed at `unix:<socket>`; with TLS the handshake still runs end to end with etcd
 * (through the tunnel), and `grpc.ssl_target_name_override` keeps the certificate check on the
 * server's real host name.
 */
export interface EtcdEgress {
  /** etcd3 client options for @plat/storage's `dial` passthrough (hosts and channel options). */
  readonly clientOptions: { hosts: string[]; grpcOptions: Record<string, string | number> };
  /** The last failed dial, to explain an unreachable etcd. */
  lastError(): Error | undefined;
  close(): Promise<void>;
}

function hostAndPort(server: string): { host: string; port: number; tls: boolean } {
  const url = new URL(server);
  return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port || 2379), tls: url.protocol === 'https:' };
}

export async function startEtcdEgress(dialer: Dialer, servers: string[], logger: ServerLogger): Promise<EtcdEgress> {
  const targets = servers.map(hostAndPort);
  const tlsNames = new Set(targets.filter((t) => t.tls).map((t) => t.host));
  if (tlsNames.size > 1) {
    throw new EgressConfigError(
      `etcd servers through egress with TLS must share one host name (the etcd client checks one name for all servers), got ${[...tlsNames].join(', ')}`,
    );
  }
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'plat-etcd-egress-'));
  await fs.chmod(dir, 0o700);
  const listeners: net.Server[] = [];
  const open = new Set<net.Socket>();
  let lastError: Error | undefined;
  const hosts: string[] = [];
  try {
    for (const [i, target] of targets.entries()) {
      const socketPath = path.join(dir, `etcd-${i}.sock`);
      const listener = net.createServer((client) => {
        open.add(client);
        client.on('close', () => open.delete(client));
        client.on('error', () => client.destroy());
        client.pause();
        dialer.dial(target.host, target.port, { timeoutMs: 10_000 }).then(
          (tunnel) => {
            if (client.destroyed) {
              tunnel.destroy();
              return;
            }
            tunnel.on('error', () => client.destroy());
            tunnel.on('close', () => client.destroy());
            client.on('close', () => tunnel.destroy());
            client.pipe(tunnel).pipe(client);
            client.resume();
          },
          (err: Error) => {
            lastError = err;
            logger.error('Dialing etcd through egress failed', { server: servers[i], err: err.message });
            client.destroy();
          },
        );
      });
      await new Promise<void>((resolve, reject) => {
        listener.once('error', reject);
        listener.listen(socketPath, () => resolve());
      });
      listeners.push(listener);
      hosts.push(`unix:${socketPath}`);
    }
  } catch (err) {
    for (const l of listeners) l.close();
    await fs.rm(dir, { recursive: true, force: true });
    throw err;
  }
  const grpcOptions: Record<string, string | number> = {
    // Same limits as @plat/storage's own channel options (these replace them).
    'grpc.max_receive_message_length': -1,
    'grpc.max_send_message_length': -1,
  };
  const [tlsName] = tlsNames;
  if (tlsName) {
    grpcOptions['grpc.ssl_target_name_override'] = tlsName;
    grpcOptions['grpc.default_authority'] = tlsName;
  }
  return {
    clientOptions: { hosts, grpcOptions },
    lastError: () => lastError,
    async close() {
      for (const s of open) s.destroy();
      await Promise.all(listeners.map((l) => new Promise((r) => l.close(r))));
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
