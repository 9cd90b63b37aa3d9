import type { FieldError } from './field-error.js';

export type SelectorErrorCode = 'InvalidLabelSelector' | 'InvalidFieldSelector';

/**
 * A malformed label or field selector. `message` is Kubernetes' exact text (the server answers it
 * as a 400 BadRequest); `causes` holds the field errors behind a requirement that did not validate.
 */
export class SelectorError extends Error {
  constructor(
    readonly code: SelectorErrorCode,
    message: string,
    readonly causes: readonly FieldError[] = [],
  ) {
    super(message);
    this.name = 'SelectorError';
  }
}
