#!/usr/bin/env node
// A real OTLP/gRPC TraceService receiver for the tracing benchmark, in its own process so that
// receiving spans does not take CPU from the load generator. It does not decode: it counts Export
// calls and bytes. Prints `listening <port>`; answers a `stats` line on stdin with a JSON line.
import readline from 'node:readline';
import * as grpc from '@grpc/grpc-js';

const stats = { calls: 0, bytes: 0 };
const server = new grpc.Server();
const raw = (b) => b;
server.addService(
  {
    Export: {
      path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
      requestStream: false,
      responseStream: false,
      requestSerialize: raw,
      requestDeserialize: raw,
      // An empty ExportTraceServiceResponse is zero bytes of protobuf.
      responseSerialize: () => Buffer.alloc(0),
      responseDeserialize: raw,
    },
  },
  {
    Export: (call, callback) => {
      stats.calls++;
      stats.bytes += call.request.length;
      callback(null, {});
    },
  },
);
server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) throw err;
  console.log(`listening ${port}`);
});
const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  if (line.trim() === 'stats') console.log(JSON.stringify(stats));
});
rl.on('close', () => server.tryShutdown(() => process.exit(0)));
