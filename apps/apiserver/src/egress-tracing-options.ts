import type { Argv } from 'yargs';

export interface EgressTracingFlags {
  /** --egress-selector-config-file */
  egressSelectorConfigFile?: string;
  /** --tracing-config-file */
  tracingConfigFile?: string;
}

/** Declares --egress-selector-config-file and --tracing-config-file (kube-apiserver's names). */
export function declareEgressTracingFlags<T>(y: Argv<T>): Argv<T> {
  // Grouped under "Egress and tracing flags:" by declareServeFlags.
  return y
    .option('egress-selector-config-file', {
      type: 'string',
      requiresArg: true,
      description:
        'File with apiserver egress selector configuration (EgressSelectorConfiguration, apiserver.plat.io/v1beta1): how webhook authorizer calls (controlplane) and the etcd client (etcd) reach their peers: Direct, HTTPConnect or GRPC.',
    })
    .option('tracing-config-file', {
      type: 'string',
      requiresArg: true,
      description:
        'File with apiserver tracing configuration (TracingConfiguration, apiserver.plat.io/v1beta1): OTLP gRPC endpoint and samplingRatePerMillion. Without it, tracing is off.',
    });
}

/** The two file flags as given (validated when the server starts: an invalid file stops it with its field errors). */
export function completeEgressTracingOptions(raw: Record<string, unknown>, errors: string[]): EgressTracingFlags {
  const out: EgressTracingFlags = {};
  for (const [flag, key] of [
    ['egress-selector-config-file', 'egressSelectorConfigFile'],
    ['tracing-config-file', 'tracingConfigFile'],
  ] as const) {
    // Given twice, the last one wins (as pflag does).
    const given = raw[flag];
    const v = Array.isArray(given) ? given[given.length - 1] : given;
    if (v === undefined) continue;
    if (typeof v !== 'string' || v === '') errors.push(`--${flag} must name a file`);
    else out[key] = v;
  }
  return out;
}
