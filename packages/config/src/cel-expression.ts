import { compile, type CelEnvironmentName, type CelProgram, type CelType } from '@plat/cel';
import { fieldError, type FieldError } from '@plat/api-model';

/**
 * Compiles an expression of a configuration file and turns a compile issue into the field error
 * Kubernetes reports (`convertCELErrorToValidationError`): Invalid with the expression as the bad
 * value, Required, or Internal.
 */
export function compileField(
  path: string,
  env: CelEnvironmentName,
  expression: string,
  expectedTypes: readonly CelType[],
): { program: CelProgram; error?: undefined } | { program?: undefined; error: FieldError } {
  const result = compile(env, expression, expectedTypes);
  if (result.ok) return { program: result.program };
  switch (result.issue.type) {
    case 'Required':
      return { error: fieldError.required(path, result.issue.detail) };
    case 'Invalid':
      return { error: fieldError.invalid(path, expression, result.issue.detail) };
    default:
      return { error: fieldError.internal(path, new Error(result.issue.detail)) };
  }
}
