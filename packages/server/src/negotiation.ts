import { newNotAcceptable } from '@plat/api-model';
import { LRUCache } from 'lru-cache';

/** The response form a client asked for through its Accept header. */
export interface MediaTypeChoice {
  /** `json` (the default) or `yaml`. */
  format: 'json' | 'yaml';
  /** `Table` (meta.k8s.io or meta.plat.io v1), `PartialObjectMetadata(List)`, or the object itself. */
  as?: 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList' | 'APIGroupDiscoveryList';
  /** The group of the `as` kind (`meta.k8s.io`, `meta.plat.io`, `apidiscovery.k8s.io`). */
  group?: string;
  version?: string;
  /** The media type written as Content-Type. */
  contentType: string;
}

interface AcceptClause {
  type: string;
  params: Record<string, string>;
  q: number;
}

export function parseAccept(header: string | undefined): AcceptClause[] {
  if (!header) return [];
  const clauses: AcceptClause[] = [];
  for (const part of header.split(',')) {
    const [typeRaw, ...paramParts] = part.split(';');
    const type = typeRaw!.trim().toLowerCase();
    if (!type) continue;
    const params: Record<string, string> = {};
    for (const p of paramParts) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim().replace(/^"|"$/g, '');
    }
    const q = params['q'] !== undefined ? Number(params['q']) : 1;
    delete params['q'];
    clauses.push({ type, params, q: Number.isFinite(q) ? q : 1 });
  }
  // Stable sort by quality; order among equals is the client's preference.
  return clauses.map((c, i) => ({ c, i })).sort((a, b) => b.c.q - a.c.q || a.i - b.i).map((x) => x.c);
}

const jsonTypes = new Set(['application/json', 'application/*', '*/*', 'application/json;stream=watch']);
const yamlTypes = new Set(['application/yaml']);
export const servedMediaTypes = ['application/json', 'application/yaml'];

export interface NegotiationOptions {
  /** Which `as=` kinds this endpoint can produce. */
  allowedAs: ReadonlyArray<NonNullable<MediaTypeChoice['as']>>;
}

/**
 * Picks the first acceptable clause, as Kubernetes' content negotiation does; 406 NotAcceptable
 * when nothing matches.
 */
export function negotiateOutput(header: string | undefined, opts: NegotiationOptions): MediaTypeChoice {
  if (!header) return defaultChoice;
  if (header.length > maxRememberedHeaderLength) return negotiate(header, opts);
  // Clients send the same few Accept headers again and again: remember the answers (bounded).
  return remembered(choices, `${opts.allowedAs.join(',')}\0${header}`, header, opts);
}

/**
 * negotiateOutput for one endpoint's fixed `allowedAs`, remembering its answers by the Accept
 * header alone (bounded as negotiateOutput's memo, one memo per negotiator). negotiateOutput
 * keys its shared memo by `allowedAs` joined with the header: an array join, a concatenation,
 * and V8's flattening and hashing of that new string on every request. A GET's Accept header
 * is looked up as the parser gave it instead. `StringAdd`, `WriteToFlat` and
 * `ComputeAndSetRawHash` were 1.2 µs of a GET's perf samples against the bare server's 0.35;
 * 0.74 against 0.25 with this and the flat Audit-Id (request-uuid.ts; perf-native.mjs, load 2-4;
 * docs/performance.md "apiserver").
 */
export function outputNegotiator(allowedAs: NegotiationOptions['allowedAs']): (header: string | undefined) => MediaTypeChoice {
  const opts: NegotiationOptions = { allowedAs: Object.freeze([...allowedAs]) };
  const answers = new LRUCache<string, MediaTypeChoice>({ max: maxRememberedChoices });
  // The header answered last and its answer: a client sends the same Accept header on every
  // request, and comparing two short strings costs less than hashing the new one and the LRU's
  // lookup and recency update: 56 B of garbage per GET gone, and with EncodedObjects' lookup
  // before Object.isFrozen, CPU per GET B ÷ A 0.968 in-process (docs/performance.md "apiserver",
  // fourth round).
  let lastHeader = '';
  let lastChoice = defaultChoice;
  return (header) => {
    if (!header) return defaultChoice;
    if (header === lastHeader) return lastChoice;
    if (header.length > maxRememberedHeaderLength) return negotiate(header, opts);
    const choice = remembered(answers, header, header, opts);
    lastHeader = header;
    lastChoice = choice;
    return choice;
  };
}

/** The answer for `header` from `memo` under `key`, negotiated and kept (frozen) the first time. */
function remembered(memo: LRUCache<string, MediaTypeChoice>, key: string, header: string, opts: NegotiationOptions): MediaTypeChoice {
  const known = memo.get(key);
  if (known) return known;
  const choice = Object.freeze(negotiate(header, opts));
  memo.set(key, choice);
  return choice;
}

const defaultChoice: MediaTypeChoice = Object.freeze({ format: 'json', contentType: 'application/json' });
const maxRememberedHeaderLength = 512;
// A memo of a pure function (the answer depends only on the header and the caller's allowedAs,
// both in the key), bounded; it holds nothing of a server or a request, so servers sharing it
// cannot see each other's state, only each other's recent Accept headers.
const maxRememberedChoices = 256;
const choices = new LRUCache<string, MediaTypeChoice>({ max: maxRememberedChoices });

function negotiate(header: string, opts: NegotiationOptions): MediaTypeChoice {
  const clauses = parseAccept(header);
  if (clauses.length === 0) return { format: 'json', contentType: 'application/json' };
  for (const c of clauses) {
    if (c.q <= 0) continue;
    const asKind = c.params['as'];
    const format = jsonTypes.has(c.type) ? 'json' : yamlTypes.has(c.type) ? 'yaml' : undefined;
    if (!format) continue;
    if (!asKind) {
      return { format, contentType: format === 'json' ? 'application/json' : 'application/yaml' };
    }
    const as = asKind as NonNullable<MediaTypeChoice['as']>;
    if (!opts.allowedAs.includes(as)) continue;
    const group = c.params['g'] ?? '';
    const version = c.params['v'] ?? '';
    if (as === 'APIGroupDiscoveryList') {
      if (group !== 'apidiscovery.k8s.io' || (version !== 'v2' && version !== 'v2beta1')) continue;
    } else if ((group !== 'meta.k8s.io' && group !== 'meta.plat.io') || (version !== 'v1' && version !== 'v1beta1')) {
      continue;
    }
    const base = format === 'json' ? 'application/json' : 'application/yaml';
    return { format, as, group, version, contentType: `${base};g=${group};v=${version};as=${as}` };
  }
  throw newNotAcceptable(servedMediaTypes);
}
