/**
 * The TracingConfiguration this package is built from: the validated `apiserver.plat.io/v1beta1`
 * kind from @plat/config, handed over by the app (same layer, so no import).
 */
export interface TracingSpec {
  /** Collector endpoint, `host:port` or with a `dns://`, `unix://` or `unix-abstract:` scheme. Default `localhost:4317`. */
  endpoint?: string;
  /** Samples per million root spans; unset means parent-based with never-sampled roots. */
  samplingRatePerMillion?: number;
}

export const defaultOtlpEndpoint = 'localhost:4317';

/**
 * The gRPC target the OTLP exporter dials. Kubernetes hands the endpoint to the gRPC dialer,
 * which treats a bare `host:port` as `dns:///host:port`; the exporter wants a URL, so a bare or
 * dns endpoint becomes `http://host:port` (insecure, as the spec says) and unix sockets stay unix.
 */
export function otlpExporterUrl(endpoint: string | undefined): string {
  const value = endpoint || defaultOtlpEndpoint;
  if (value.startsWith('unix://') || value.startsWith('unix:')) return value;
  if (value.startsWith('unix-abstract:')) return value;
  const withoutDns = value.replace(/^dns:(\/\/[^/]*\/)?/, '');
  return `http://${withoutDns}`;
}
