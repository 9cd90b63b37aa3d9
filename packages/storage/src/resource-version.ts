import { newBadRequest } from '@plat/api-model';

/**
 * Parses a resourceVersion parameter: "" (or undefined) → undefined (most recent),
 * otherwise a non-negative integer. "0" parses to 0 ("any").
 */
export function parseResourceVersion(rv: string | undefined): number | undefined {
  if (rv === undefined || rv === '') return undefined;
  if (!/^(0|[1-9][0-9]{0,15})$/.test(rv)) {
    throw newBadRequest(`invalid resource version: ${JSON.stringify(rv)}: must be a non-negative integer`);
  }
  return Number(rv);
}

/** The revision the store wrote an object at, from its metadata (0 when missing). */
export function objectRevision(obj: { metadata?: { resourceVersion?: string } }): number {
  const rv = obj.metadata?.resourceVersion;
  return rv ? Number(rv) : 0;
}
