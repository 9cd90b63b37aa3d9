import { newNotAcceptable } from '@plat/api-model';
import { parseAccept } from '../negotiation.js';
import { openApiV2ProtoMediaTypes } from './openapi-v2-proto.js';

/**
 * The form of /openapi/v2 a client asked for, as kube-openapi's handler picks it (pkg/handler
 * RegisterOpenAPIVersionedService): the Accept clauses by quality, then the more specific first,
 * each against JSON and the two protobuf spellings in that order (YAML as the other endpoints
 * offer it); 406 when none matches. A clause with q=0 is refused, as RFC 9110 says.
 */
export function negotiateOpenApiV2(accept: string | undefined): 'json' | 'yaml' | 'protobuf' {
  if (!accept) return 'json';
  const specificity = (type: string) => (type === '*/*' ? 0 : type.endsWith('/*') ? 1 : 2);
  const clauses = parseAccept(accept)
    .map((c, i) => ({ c, i }))
    .sort((a, b) => b.c.q - a.c.q || specificity(b.c.type) - specificity(a.c.type) || a.i - b.i)
    .map((x) => x.c);
  for (const { type, q } of clauses) {
    if (q <= 0) continue;
    if (type === 'application/json' || type === 'application/*' || type === '*/*') return 'json';
    if (openApiV2ProtoMediaTypes.includes(type)) return 'protobuf';
    if (type === 'application/yaml') return 'yaml';
  }
  throw newNotAcceptable(['application/json', ...openApiV2ProtoMediaTypes]);
}
