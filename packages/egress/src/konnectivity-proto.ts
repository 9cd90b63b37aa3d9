/**
 * The Konnectivity tunnel protocol (apiserver-network-proxy's client proto) as a protobufjs JSON
 * descriptor: our own definition of the same wire format. One bidirectional `Proxy` stream
 * carries one tunnelled connection: DIAL_REQ → DIAL_RSP, then DATA both ways, then CLOSE_REQ →
 * CLOSE_RSP. The proto has no package, so the gRPC method path is `/ProxyService/Proxy`.
 */
export const konnectivityDescriptor = {
  nested: {
    ProxyService: {
      methods: {
        Proxy: { requestType: 'Packet', requestStream: true, responseType: 'Packet', responseStream: true },
      },
    },
    PacketType: { values: { DIAL_REQ: 0, DIAL_RSP: 1, CLOSE_REQ: 2, CLOSE_RSP: 3, DATA: 4, DIAL_CLS: 5 } },
    Error: { values: { EOF: 0 } },
    Packet: {
      oneofs: {
        payload: { oneof: ['dialRequest', 'dialResponse', 'data', 'closeRequest', 'closeResponse', 'closeDial'] },
      },
      fields: {
        type: { type: 'PacketType', id: 1 },
        dialRequest: { type: 'DialRequest', id: 2 },
        dialResponse: { type: 'DialResponse', id: 3 },
        data: { type: 'Data', id: 4 },
        closeRequest: { type: 'CloseRequest', id: 5 },
        closeResponse: { type: 'CloseResponse', id: 6 },
        closeDial: { type: 'CloseDial', id: 7 },
      },
    },
    DialRequest: {
      fields: { protocol: { type: 'string', id: 1 }, address: { type: 'string', id: 2 }, random: { type: 'int64', id: 3 } },
    },
    DialResponse: {
      fields: {
        error: { type: 'string', id: 1 },
        connectID: { type: 'int64', id: 2 },
        random: { type: 'int64', id: 3 },
        bearerToken: { type: 'string', id: 4 },
      },
    },
    CloseRequest: { fields: { connectID: { type: 'int64', id: 1 } } },
    CloseResponse: { fields: { error: { type: 'string', id: 1 }, connectID: { type: 'int64', id: 2 } } },
    CloseDial: { fields: { random: { type: 'int64', id: 1 } } },
    Data: {
      fields: { connectID: { type: 'int64', id: 1 }, error: { type: 'string', id: 2 }, data: { type: 'bytes', id: 3 } },
    },
  },
};

export type PacketType = 'DIAL_REQ' | 'DIAL_RSP' | 'CLOSE_REQ' | 'CLOSE_RSP' | 'DATA' | 'DIAL_CLS';

/** A decoded packet (proto-loader options: longs as strings, enums as strings). */
export interface Packet {
  type: PacketType;
  payload?: string;
  dialRequest?: { protocol: string; address: string; random: string };
  dialResponse?: { error: string; connectID: string; random: string; bearerToken?: string };
  data?: { connectID: string; error?: string; data: Buffer };
  closeRequest?: { connectID: string };
  closeResponse?: { error: string; connectID: string };
  closeDial?: { random: string };
}

export const konnectivityLoaderOptions = {
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
} as const;
