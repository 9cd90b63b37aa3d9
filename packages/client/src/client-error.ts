/**
 * An error of the client library with a stable `code` (jose style). Its message is the text kubectl
 * prints after `error: `; server answers are `StatusError`s from @plat/api-model instead.
 */
export type ClientErrorCode =
  | 'ConfigNotFound'
  | 'ConfigInvalid'
  | 'ContextNotFound'
  | 'ClusterNotFound'
  | 'UserNotFound'
  | 'InvalidFlag'
  | 'PathNotFound'
  | 'DecodeFailed'
  | 'FlattenFailed'
  | 'PatchFailed'
  | 'URLFailed'
  | 'KustomizeFailed'
  | 'ResourceTypeNotFound'
  | 'Connection'
  | 'Timeout'
  | 'TemplateParse'
  | 'TemplateExecute'
  | 'UsageError';

export class ClientError extends Error {
  readonly code: ClientErrorCode;

  constructor(code: ClientErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ClientError';
    this.code = code;
  }
}

export function isClientError(err: unknown, code?: ClientErrorCode): err is ClientError {
  return err instanceof ClientError && (code === undefined || err.code === code);
}
