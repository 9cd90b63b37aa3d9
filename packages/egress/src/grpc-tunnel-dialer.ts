import crypto from 'node:crypto';
import { Duplex } from 'node:stream';
import type * as grpc from '@grpc/grpc-js';
import type * as protoLoader from '@grpc/proto-loader';
import { withDialDeadline, type DialOptions, type Dialer } from './dialer.js';
import { EgressDialError } from './egress-error.js';
import { konnectivityDescriptor, konnectivityLoaderOptions, type Packet } from './konnectivity-proto.js';

type ProxyStream = grpc.ClientDuplexStream<Packet, Packet>;
interface ProxyServiceClient extends grpc.Client {
  Proxy(): ProxyStream;
}
type ProxyServiceConstructor = new (address: string, credentials: grpc.ChannelCredentials) => ProxyServiceClient;

type ServiceDefinitions = { Client: ProxyServiceConstructor; service: grpc.ServiceDefinition };

let loading: Promise<ServiceDefinitions & { grpc: typeof grpc }> | undefined;

/**
 * gRPC and protobufjs are imported on the first dial of a GRPC selection, so that importing
 * @plat/egress or dialling Direct and HTTPConnect never loads them.
 */
function loadKonnectivity(): Promise<ServiceDefinitions & { grpc: typeof grpc }> {
  return (loading ??= (async () => {
    const [grpcModule, loader] = await Promise.all([import('@grpc/grpc-js'), import('@grpc/proto-loader')]);
    const definition = loader.fromJSON(konnectivityDescriptor as unknown as Parameters<typeof protoLoader.fromJSON>[0], konnectivityLoaderOptions);
    const loaded = grpcModule.loadPackageDefinition(definition) as unknown as { ProxyService: ProxyServiceConstructor };
    const Client = loaded.ProxyService;
    return { grpc: grpcModule, Client, service: (Client as unknown as { service: grpc.ServiceDefinition }).service };
  })());
}

/** The ProxyService gRPC definitions (client constructor and service) from our descriptor. */
export async function konnectivityService(): Promise<ServiceDefinitions> {
  const { Client, service } = await loadKonnectivity();
  return { Client, service };
}

/**
 * Kubernetes' GRPC proxyProtocol over a unix socket: each dial opens one `Proxy` stream on the
 * Konnectivity server, asks it to dial the target and then exchanges DATA packets.
 */
export class GrpcTunnelDialer implements Dialer {
  readonly via: string;
  private client: Promise<{ client: ProxyServiceClient; cancelledCode: grpc.status }> | undefined;

  constructor(
    readonly selection: string,
    private readonly udsName: string,
  ) {
    this.via = `grpc+unix://${udsName}`;
  }

  private getClient(): Promise<{ client: ProxyServiceClient; cancelledCode: grpc.status }> {
    return (this.client ??= loadKonnectivity().then(({ grpc, Client }) => ({
      client: new Client(`unix://${this.udsName}`, grpc.credentials.createInsecure()),
      cancelledCode: grpc.status.CANCELLED,
    })));
  }

  dial(host: string, port: number, opts?: DialOptions): Promise<Duplex> {
    const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    return withDialDeadline(opts, async (signal) => {
      const { client, cancelledCode } = await this.getClient().catch((err: Error) => {
        throw new EgressDialError(this.selection, this.via, `loading gRPC: ${err.message}`, { cause: err });
      });
      if (signal.aborted) throw new EgressDialError(this.selection, this.via, `dial ${address}: ${(signal.reason as Error)?.message ?? 'aborted'}`);
      const stream = client.Proxy();
      const random = crypto.randomBytes(6).readUIntBE(0, 6).toString();
      return new Promise<Duplex>((resolve, reject) => {
        const fail = (detail: string, cause?: unknown) => {
          cleanup();
          stream.cancel();
          reject(new EgressDialError(this.selection, this.via, detail, { cause }));
        };
        const onData = (packet: Packet) => {
          if (packet.type !== 'DIAL_RSP' || packet.dialResponse?.random !== random) return;
          cleanup();
          const response = packet.dialResponse;
          if (response.error) {
            stream.cancel();
            reject(new EgressDialError(this.selection, this.via, `dial ${address}: ${response.error}`));
            return;
          }
          resolve(new TunnelConnection(stream, response.connectID, cancelledCode));
        };
        const onError = (err: Error) => fail(`tunnel stream: ${err.message}`, err);
        const onEnd = () => fail(`the tunnel server closed the stream before answering the dial of ${address}`);
        const onAbort = () => {
          stream.write({ type: 'DIAL_CLS', closeDial: { random } });
          fail(`dial ${address}: ${(signal.reason as Error)?.message ?? 'aborted'}`);
        };
        const cleanup = () => {
          stream.removeListener('data', onData);
          stream.removeListener('error', onError);
          // The stream is cancelled on failure; its CANCELLED error has no one else to hear it.
          stream.on('error', () => undefined);
          stream.removeListener('end', onEnd);
          signal.removeEventListener('abort', onAbort);
        };
        stream.on('data', onData);
        stream.on('error', onError);
        stream.on('end', onEnd);
        signal.addEventListener('abort', onAbort, { once: true });
        stream.write({ type: 'DIAL_REQ', dialRequest: { protocol: 'tcp', address, random } });
      });
    });
  }

  close(): void {
    void this.client?.then(({ client }) => client.close(), () => undefined);
    this.client = undefined;
  }
}

/** One tunnelled connection as a byte stream; socket-only calls that HTTP clients make are no-ops. */
class TunnelConnection extends Duplex {
  private closeSent = false;

  constructor(
    private readonly stream: ProxyStream,
    private readonly connectID: string,
    cancelledCode: grpc.status,
  ) {
    super();
    stream.on('data', (packet: Packet) => {
      if (packet.type === 'DATA' && packet.data?.connectID === connectID) {
        if (packet.data.error) this.destroy(new Error(packet.data.error));
        else this.push(packet.data.data);
      } else if (packet.type === 'CLOSE_RSP' && packet.closeResponse?.connectID === connectID) {
        this.push(null);
        stream.end();
      }
    });
    stream.on('end', () => this.push(null));
    stream.on('error', (err: grpc.ServiceError) => {
      if (err.code !== cancelledCode) this.destroy(err);
    });
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.stream.write({ type: 'DATA', data: { connectID: this.connectID, data: chunk } }, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.sendClose();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.sendClose();
    this.stream.cancel();
    callback(error);
  }

  private sendClose(): void {
    if (this.closeSent) return;
    this.closeSent = true;
    this.stream.write({ type: 'CLOSE_REQ', closeRequest: { connectID: this.connectID } });
  }

  setKeepAlive(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setTimeout(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
}
