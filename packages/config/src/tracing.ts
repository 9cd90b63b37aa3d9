/**
 * TracingConfiguration: decoding, validation and the loaded form.
 *
 * Rules and messages follow Kubernetes' `ValidateTracingConfiguration` (component-base): the
 * endpoint is a gRPC target (`dns://` is assumed when it has no `//`; schemes dns, unix and
 * unix-abstract) and must name host:port for dns; samplingRatePerMillion is 0..1,000,000. An empty
 * file is valid and means "defaults" (endpoint localhost:4317, parent-based sampling).
 */
import { fieldError, type FieldError, goQuote } from '@plat/api-model';
import { decodeDocument, type LoadResult } from './document.js';
import { tracingConfigurationSchema } from './schemas.js';

export const maxSamplingRatePerMillion = 1_000_000;
/** The OTLP gRPC default the spec names for an unset endpoint. */
export const defaultTracingEndpoint = 'localhost:4317';

export interface TracingConfiguration {
  apiVersion?: string;
  kind?: 'TracingConfiguration';
  /** As written; unset means {@link defaultTracingEndpoint}. */
  endpoint?: string;
  /** Unset means: follow the parent span's decision, otherwise never sample. */
  samplingRatePerMillion?: number;
}

function validHostPort(target: string): boolean {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/\s]+):(\d{1,5})$/.exec(target);
  if (!m) return false;
  const port = Number(m[2]);
  return port >= 1 && port <= 65535;
}

/** Problems with an endpoint, as Kubernetes words them (plus the host:port check). */
export function tracingEndpointErrors(endpoint: string, path: string): FieldError[] {
  const target = endpoint.includes('//') ? endpoint : `dns://${endpoint}`;
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(target)?.[1]?.toLowerCase() ?? '';
  if (/\s/.test(target)) return [fieldError.invalid(path, target, `parse ${goQuote(target)}: invalid character in URL`)];
  switch (scheme) {
    case 'dns': {
      // dns://host:port or dns://authority/host:port
      const rest = target.slice('dns://'.length);
      const slash = rest.indexOf('/');
      const hostPort = slash < 0 ? rest : rest.slice(slash + 1);
      if (!validHostPort(hostPort)) return [fieldError.invalid(path, endpoint, 'must be a valid host:port address')];
      return [];
    }
    case 'unix':
    case 'unix-abstract': {
      const rest = target.slice(scheme.length + 1).replace(/^\/\//, '');
      if (rest === '' || rest === '/') return [fieldError.invalid(path, endpoint, 'must name a socket path')];
      return [];
    }
    default:
      return [
        fieldError.invalid(
          path,
          target,
          `unsupported scheme: ${scheme}.  Options are none, dns, unix, or unix-abstract.  See https://github.com/grpc/grpc/blob/master/doc/naming.md`,
        ),
      ];
  }
}

/** Decodes and validates a TracingConfiguration file. An empty file is valid. */
export function loadTracingConfiguration(data: string | Uint8Array): LoadResult<TracingConfiguration> {
  const decoded = decodeDocument(data, 'TracingConfiguration', tracingConfigurationSchema);
  if (!decoded.ok) return { ok: false, errors: decoded.errors, warnings: [] };
  if (!decoded.value) return { ok: true, config: {}, warnings: [] };
  const input = decoded.value;
  const errs: FieldError[] = [];
  const rate = input.samplingRatePerMillion;
  if (rate !== undefined) {
    if (rate < 0) errs.push(fieldError.invalid('samplingRatePerMillion', rate, 'sampling rate must be positive'));
    if (rate > maxSamplingRatePerMillion) {
      errs.push(fieldError.invalid('samplingRatePerMillion', rate, 'sampling rate per million must be less than or equal to one million'));
    }
  }
  if (input.endpoint !== undefined) errs.push(...tracingEndpointErrors(input.endpoint, 'endpoint'));
  if (errs.length > 0) return { ok: false, errors: errs, warnings: [] };
  const config: TracingConfiguration = { apiVersion: input.apiVersion, kind: 'TracingConfiguration' };
  if (input.endpoint !== undefined) config.endpoint = input.endpoint;
  if (rate !== undefined) config.samplingRatePerMillion = rate;
  return { ok: true, config, warnings: [] };
}
