import { loadTracingConfiguration } from './tracing.js';

const header = 'apiVersion: apiserver.plat.io/v1beta1\nkind: TracingConfiguration\n';
function errorsOf(yaml: string): string[] {
  const r = loadTracingConfiguration(header + yaml);
  return r.ok ? [] : r.errors.map(String);
}

describe('TracingConfiguration', () => {
  it('treats an empty file as valid defaults', () => {
    expect(loadTracingConfiguration('')).toEqual({ ok: true, config: {}, warnings: [] });
    expect(loadTracingConfiguration('\n# tracing off\n')).toEqual({ ok: true, config: {}, warnings: [] });
  });

  it('loads endpoint and sampling rate', () => {
    expect(loadTracingConfiguration(`${header}endpoint: collector.example:4317\nsamplingRatePerMillion: 100\n`)).toEqual({
      ok: true,
      config: { apiVersion: 'apiserver.plat.io/v1beta1', kind: 'TracingConfiguration', endpoint: 'collector.example:4317', samplingRatePerMillion: 100 },
      warnings: [],
    });
    expect(loadTracingConfiguration(header).ok).toBe(true);
  });

  it('accepts gRPC targets with the dns, unix and unix-abstract schemes', () => {
    for (const endpoint of ['localhost:4317', '10.0.0.1:4317', '[::1]:4317', 'dns:///collector:4317', 'dns://8.8.8.8/collector:4317', 'unix:///run/otel.sock', 'unix-abstract://otel']) {
      expect([endpoint, errorsOf(`endpoint: ${JSON.stringify(endpoint)}\n`)]).toEqual([endpoint, []]);
    }
  });

  it('rejects other schemes and endpoints that are not host:port', () => {
    expect(errorsOf('endpoint: "https://collector:4317"\n')).toEqual([
      'endpoint: Invalid value: "https://collector:4317": unsupported scheme: https.  Options are none, dns, unix, or unix-abstract.  See https://github.com/grpc/grpc/blob/master/doc/naming.md',
    ]);
    expect(errorsOf('endpoint: collector\n')).toEqual(['endpoint: Invalid value: "collector": must be a valid host:port address']);
    expect(errorsOf('endpoint: "collector:99999"\n')).toEqual(['endpoint: Invalid value: "collector:99999": must be a valid host:port address']);
    // Without "//" the target is read as dns://<endpoint>, as Kubernetes does.
    expect(errorsOf('endpoint: "unix:run/otel.sock"\n')).toEqual(['endpoint: Invalid value: "unix:run/otel.sock": must be a valid host:port address']);
    expect(errorsOf('endpoint: ""\n')).toEqual(['endpoint: Invalid value: "": must be a valid host:port address']);
  });

  it('bounds samplingRatePerMillion to 0..1,000,000', () => {
    expect(errorsOf('samplingRatePerMillion: -1\n')).toEqual(['samplingRatePerMillion: Invalid value: -1: sampling rate must be positive']);
    expect(errorsOf('samplingRatePerMillion: 1000001\n')).toEqual([
      'samplingRatePerMillion: Invalid value: 1000001: sampling rate per million must be less than or equal to one million',
    ]);
    expect(errorsOf('samplingRatePerMillion: 0\n')).toEqual([]);
    expect(errorsOf('samplingRatePerMillion: 1000000\n')).toEqual([]);
    expect(errorsOf('samplingRatePerMillion: 1.5\n')).toEqual(['samplingRatePerMillion: Invalid value: 1.5: must be an integer, not number']);
    expect(errorsOf('samplingRatePerMillion: 3000000000\n')).toEqual(['samplingRatePerMillion: Invalid value: 3000000000: must fit in a 32-bit signed integer']);
  });

  it('decodes strictly', () => {
    expect(errorsOf('endpoint: a:1\nendpoint: b:1\n')).toEqual(['duplicate field "endpoint"']);
    expect(errorsOf('samplingRate: 1\n')).toEqual(['unknown field "samplingRate"']);
    expect(loadTracingConfiguration('kind: TracingConfiguration\n').ok).toBe(false);
  });
});
