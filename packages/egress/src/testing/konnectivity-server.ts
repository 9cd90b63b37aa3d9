import net from 'node:net';
import type * as Grpc from '@grpc/grpc-js';
import { konnectivityService, type Packet } from '../index.js';

/**
 * A Konnectivity-protocol tunnel server for tests, built from the same proto definitions as the
 * dialer: answers DIAL_REQ by dialing the address, relays DATA, closes on CLOSE_REQ.
 */
export async function startKonnectivityServer(udsPath: string): Promise<{ dials: string[]; close(): Promise<void> }> {
  // gRPC is loaded when a server starts, not when @plat/egress/testing is imported.
  const grpc = await import('@grpc/grpc-js');
  const dials: string[] = [];
  let nextId = 1;
  const server = new grpc.Server();
  const { service } = await konnectivityService();
  server.addService(service, {
    Proxy: (stream: Grpc.ServerDuplexStream<Packet, Packet>) => {
      const conns = new Map<string, net.Socket>();
      stream.on('data', (packet: Packet) => {
        if (packet.type === 'DIAL_REQ' && packet.dialRequest) {
          const { address, random } = packet.dialRequest;
          dials.push(address);
          const sep = address.lastIndexOf(':');
          const socket = net.connect({ host: address.slice(0, sep).replace(/^\[(.*)\]$/, '$1'), port: Number(address.slice(sep + 1)) });
          const connectID = String(nextId++);
          socket.once('connect', () => {
            conns.set(connectID, socket);
            stream.write({ type: 'DIAL_RSP', dialResponse: { error: '', connectID, random } });
          });
          socket.once('error', (err) => {
            if (!conns.has(connectID)) stream.write({ type: 'DIAL_RSP', dialResponse: { error: err.message, connectID: '0', random } });
          });
          socket.on('data', (data) => stream.write({ type: 'DATA', data: { connectID, data } }));
          socket.on('close', () => {
            if (conns.delete(connectID)) stream.write({ type: 'CLOSE_RSP', closeResponse: { error: '', connectID } });
          });
        } else if (packet.type === 'DATA' && packet.data) {
          conns.get(packet.data.connectID)?.write(packet.data.data);
        } else if (packet.type === 'CLOSE_REQ' && packet.closeRequest) {
          const socket = conns.get(packet.closeRequest.connectID);
          conns.delete(packet.closeRequest.connectID);
          socket?.destroy();
          stream.write({ type: 'CLOSE_RSP', closeResponse: { error: '', connectID: packet.closeRequest.connectID } });
          stream.end();
        }
      });
      stream.on('error', () => undefined);
      stream.on('cancelled', () => {
        for (const s of conns.values()) s.destroy();
      });
    },
  });
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${udsPath}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
  );
  return {
    dials,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}
