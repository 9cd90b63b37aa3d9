/**
 * An error of the trust library with a stable `code` (jose style). Server answers reach callers as
 * `StatusError`s (@plat/api-model) and transport failures as `ClientError`s (@plat/client).
 */
export type TrustErrorCode =
  /** The selection is not one the kubelet's clusterTrustBundle projection accepts. */
  | 'InvalidSelection'
  /** A selection that is not optional matched no ClusterTrustBundle. */
  | 'NoMatch'
  /** The server closed a watch within a second without sending anything (retried with backoff). */
  | 'ShortWatch'
  /** The trust bundle file could not be read or written. */
  | 'FileFailed'
  /** The anchors cannot be written in the asked format (a key type JWK has no form for, an alias too long). */
  | 'EncodeFailed'
  /** A truststore or bundle file read back is not in its format, or its password is wrong. */
  | 'DecodeFailed';

export class TrustError extends Error {
  readonly code: TrustErrorCode;

  constructor(code: TrustErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TrustError';
    this.code = code;
  }
}

export function isTrustError(err: unknown, code?: TrustErrorCode): err is TrustError {
  return err instanceof TrustError && (code === undefined || err.code === code);
}
