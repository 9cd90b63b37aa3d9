import { JsonDecodeError, decodeJson, newBadRequest } from '@plat/api-model';

/**
 * A list continue token, in Kubernetes' encoding: base64 of
 * `{"v":"meta.k8s.io/v1","rv":<revision>,"start":"<next key relative to the prefix>"}`.
 * rv -1 means "the latest revision" (the fresh token handed out when the snapshot was compacted).
 */
export interface ContinueToken {
  revision: number;
  /** The first key (absolute) the next page starts at. */
  startKey: string;
}

const tokenVersion = 'meta.k8s.io/v1';

export function encodeContinue(nextKey: string, prefix: string, revision: number): string {
  if (!nextKey.startsWith(prefix)) throw new TypeError(`key ${nextKey} is not under ${prefix}`);
  const body = JSON.stringify({ v: tokenVersion, rv: revision, start: nextKey.slice(prefix.length) });
  return Buffer.from(body, 'utf8').toString('base64');
}

function invalid(detail: string): Error {
  // Kubernetes answers an unreadable token with 400 "invalid continue token: ...".
  return newBadRequest(`invalid continue token: continue key is not valid: ${detail}`);
}

export function decodeContinue(token: string, prefix: string): ContinueToken {
  let parsed: unknown;
  try {
    const text = Buffer.from(token, 'base64').toString('utf8');
    parsed = decodeJson(text).value;
  } catch (err) {
    if (!(err instanceof JsonDecodeError)) throw err;
    throw invalid('the token is not base64-encoded JSON');
  }
  if (typeof parsed !== 'object' || parsed === null) throw invalid('the token is not a JSON object');
  const { v, rv, start } = parsed as { v?: unknown; rv?: unknown; start?: unknown };
  if (v !== tokenVersion) throw invalid(`incorrect encoded start resourceVersion (version ${tokenVersion})`);
  if (typeof rv !== 'number' || !Number.isInteger(rv) || rv === 0 || rv < -1) {
    throw invalid('incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  if (typeof start !== 'string' || start.length === 0) throw invalid('encoded start key is empty');
  // A token must not escape the prefix it was issued for (Kubernetes cleans the path the same way).
  if (start.startsWith('/') || start.split('/').some((s) => s === '..' || s === '.')) {
    throw invalid('key must not be absolute or contain relative path segments');
  }
  return { revision: rv, startKey: prefix + start };
}
