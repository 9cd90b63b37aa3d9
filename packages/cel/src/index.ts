export { compile, CelTypes, kubernetesTypeName, maxExpressionLength } from './compile.js';
export type { Activation, CelIssue, CelProgram, CelType, CompileOptions, CompileResult } from './compile.js';
export { celEnvironmentNames, parseLimits } from './environments.js';
export type { CelEnvironmentName } from './environments.js';
export { defaultEvaluationBudget } from './budget.js';
export type { EvaluationBudget } from './budget.js';
export { CelBudgetExceededError, CelEvaluationError } from './errors.js';
export { celTypeOf, requestActivation, toCelClaims, userActivation } from './values.js';
export type { SubjectAccessReviewSpecInput } from './values.js';
