import type * as Grpc from '@grpc/grpc-js';

/**
 * A real OTLP/gRPC trace receiver for tests: the TraceService `Export` method, decoding the
 * subset of opentelemetry-proto (collector/trace/v1, trace/v1, common/v1, resource/v1) that our
 * assertions read, written as our own protobufjs descriptor with the same field numbers.
 */
const descriptor = {
  nested: {
    opentelemetry: {
      nested: {
        proto: {
          nested: {
            collector: {
              nested: {
                trace: {
                  nested: {
                    v1: {
                      nested: {
                        TraceService: {
                          methods: {
                            Export: { requestType: 'ExportTraceServiceRequest', responseType: 'ExportTraceServiceResponse' },
                          },
                        },
                        ExportTraceServiceRequest: {
                          fields: { resourceSpans: { rule: 'repeated', type: 'opentelemetry.proto.trace.v1.ResourceSpans', id: 1 } },
                        },
                        ExportTraceServiceResponse: { fields: {} },
                      },
                    },
                  },
                },
              },
            },
            trace: {
              nested: {
                v1: {
                  nested: {
                    ResourceSpans: {
                      fields: {
                        resource: { type: 'opentelemetry.proto.resource.v1.Resource', id: 1 },
                        scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 },
                      },
                    },
                    ScopeSpans: { fields: { spans: { rule: 'repeated', type: 'Span', id: 2 } } },
                    Span: {
                      fields: {
                        traceId: { type: 'bytes', id: 1 },
                        spanId: { type: 'bytes', id: 2 },
                        parentSpanId: { type: 'bytes', id: 4 },
                        name: { type: 'string', id: 5 },
                        kind: { type: 'int32', id: 6 },
                        attributes: { rule: 'repeated', type: 'opentelemetry.proto.common.v1.KeyValue', id: 9 },
                      },
                    },
                  },
                },
              },
            },
            resource: {
              nested: {
                v1: {
                  nested: {
                    Resource: { fields: { attributes: { rule: 'repeated', type: 'opentelemetry.proto.common.v1.KeyValue', id: 1 } } },
                  },
                },
              },
            },
            common: {
              nested: {
                v1: {
                  nested: {
                    KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
                    AnyValue: {
                      oneofs: { value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue'] } },
                      fields: {
                        stringValue: { type: 'string', id: 1 },
                        boolValue: { type: 'bool', id: 2 },
                        intValue: { type: 'int64', id: 3 },
                        doubleValue: { type: 'double', id: 4 },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

interface KeyValue {
  key: string;
  value?: { stringValue?: string; boolValue?: boolean; intValue?: string; doubleValue?: number };
}

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, string | number | boolean>;
  resource: Record<string, string | number | boolean>;
}

function flatten(attrs: KeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of attrs ?? []) {
    if (!value) continue;
    out[key] = value.stringValue ?? value.boolValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.doubleValue ?? '');
  }
  return out;
}

/** A started receiver: where to export to, and what arrived. */
export interface OtlpReceiver {
  /** `127.0.0.1:<port>`, for a TracingConfiguration's `endpoint`. */
  endpoint: string;
  /** What the Export calls carried, decoded. */
  spans: ReceivedSpan[];
  /** Each call's request bytes as received, for comparing exporters byte for byte. */
  requests: Buffer[];
  close(): Promise<void>;
}

/** Starts a receiver on a free loopback port (gRPC is loaded here, not when the module is imported). */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const grpc = await import('@grpc/grpc-js');
  const protoLoader = await import('@grpc/proto-loader');
  const definition = protoLoader.fromJSON(descriptor as unknown as Parameters<typeof protoLoader.fromJSON>[0], {
    longs: String,
    oneofs: true,
  });
  const loaded = grpc.loadPackageDefinition(definition) as unknown as {
    opentelemetry: { proto: { collector: { trace: { v1: { TraceService: { service: Grpc.ServiceDefinition } } } } } };
  };
  const spans: ReceivedSpan[] = [];
  const requests: Buffer[] = [];
  const service = loaded.opentelemetry.proto.collector.trace.v1.TraceService.service;
  const exportMethod = service['Export']!;
  const server = new grpc.Server();
  server.addService(
    {
      Export: {
        ...exportMethod,
        requestDeserialize: (bytes: Buffer) => {
          requests.push(Buffer.from(bytes));
          return exportMethod.requestDeserialize(bytes);
        },
      },
    },
    {
    Export: (
      call: Grpc.ServerUnaryCall<{ resourceSpans: { resource?: { attributes: KeyValue[] }; scopeSpans: { spans: { traceId: Buffer; spanId: Buffer; parentSpanId: Buffer; name: string; attributes: KeyValue[] }[] }[] }[] }, unknown>,
      callback: Grpc.sendUnaryData<unknown>,
    ) => {
      for (const rs of call.request.resourceSpans) {
        const resource = flatten(rs.resource?.attributes);
        for (const ss of rs.scopeSpans) {
          for (const s of ss.spans) {
            spans.push({
              traceId: Buffer.from(s.traceId).toString('hex'),
              spanId: Buffer.from(s.spanId).toString('hex'),
              parentSpanId: s.parentSpanId ? Buffer.from(s.parentSpanId).toString('hex') : '',
              name: s.name,
              attributes: flatten(s.attributes),
              resource,
            });
          }
        }
      }
      callback(null, {});
    },
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    endpoint: `127.0.0.1:${port}`,
    spans,
    requests,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}
