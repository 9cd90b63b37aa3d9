/** Typed errors raised while evaluating a compiled program. */

/** An evaluation failed: a missing key, no matching overload at run time, a bad conversion... */
export class CelEvaluationError extends Error {
  constructor(
    message: string,
    /** Stable code: cel-js' error code (`no_such_key`, `no_matching_overload`...) or `budget_exceeded`. */
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CelEvaluationError';
  }
}

/** The evaluation ran over its step or time budget and was stopped. */
export class CelBudgetExceededError extends CelEvaluationError {
  constructor(message: string) {
    super(message, 'budget_exceeded');
    this.name = 'CelBudgetExceededError';
  }
}
