import { createSecureContext, type SecureContext, type SecureContextOptions } from 'node:tls';
import type { TrustAnchors } from './trust-anchors.js';

/**
 * A TLS secure context that trusts exactly the given anchors (not Node's built-in roots), with
 * any other options (client certificate and key, ciphers...). For `node:https` and `tls.connect`:
 * pass it as `secureContext`. An empty set of anchors trusts no server at all.
 */
export function trustedSecureContext(anchors: Pick<TrustAnchors, 'pem'> | string, options: Omit<SecureContextOptions, 'ca'> = {}): SecureContext {
  const pem = typeof anchors === 'string' ? anchors : anchors.pem;
  // `ca` replaces the default roots; an empty list adds none.
  return createSecureContext({ ...options, ca: pem === '' ? [] : pem });
}
