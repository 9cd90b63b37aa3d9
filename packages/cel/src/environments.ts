/**
 * The three CEL environments of the server configuration files, declared as Kubernetes declares
 * them (`k8s.io/apiserver/pkg/authentication/cel` and `.../authorization/cel`):
 * - `claims`: `claims` is `map(string, dyn)` (claimValidationRules, claimMappings, extra);
 * - `user`: `user` is `kubernetes.UserInfo` {username, uid, groups, extra} (userValidationRules);
 * - `request`: `request` is `kubernetes.SubjectAccessReviewSpec` of authorization v1
 *   (webhook matchConditions).
 */
import { ok as assert } from 'node:assert';
import { Environment } from '@marcbachmann/cel-js';
import { StepMeter } from './budget.js';
import { registerExtensions } from './extensions.js';
import { registerStandardLibrary } from './standard-library.js';

export type CelEnvironmentName = 'claims' | 'user' | 'request';

export const celEnvironmentNames: readonly CelEnvironmentName[] = ['claims', 'user', 'request'];

/** Structural limits applied while parsing (cel-go's parser has comparable recursion limits). */
export const parseLimits = {
  maxAstNodes: 10_000,
  maxDepth: 100,
  maxListElements: 1_000,
  maxMapEntries: 1_000,
  maxCallArguments: 32,
} as const;

export interface BuiltEnvironment<N extends string = CelEnvironmentName> {
  readonly name: N;
  readonly env: Environment;
  readonly meter: StepMeter;
}

const userSchema = {
  username: 'string',
  uid: 'string',
  groups: 'list<string>',
  extra: 'map<string, list<string>>',
} as const;

const selectorSchema = { rawSelector: 'string', requirements: 'list<SelectorRequirement>' } as const;

const requestSchema = {
  user: 'string',
  uid: 'string',
  groups: 'list<string>',
  extra: 'map<string, list<string>>',
  resourceAttributes: {
    namespace: 'string',
    verb: 'string',
    group: 'string',
    version: 'string',
    resource: 'string',
    subresource: 'string',
    name: 'string',
    fieldSelector: selectorSchema,
    labelSelector: selectorSchema,
  },
  nonResourceAttributes: { path: 'string', verb: 'string' },
} as const;

const declarations: Record<CelEnvironmentName, (env: Environment) => void> = {
  claims(env) {
    env.registerVariable('claims', 'map<string, dyn>', { description: 'The claims of the JWT.' });
  },
  user(env) {
    env.registerVariable({ name: 'user', schema: userSchema, description: 'The user info built by the claim mappings.' });
  },
  request(env) {
    env.registerType('SelectorRequirement', { fields: { key: 'string', operator: 'string', values: 'list<string>' } });
    env.registerVariable({ name: 'request', schema: requestSchema, description: 'The SubjectAccessReviewSpec (v1).' });
  },
};

/**
 * An environment with Kubernetes' options, functions and step meter, and the variables that
 * `declare` registers. The three named environments are built with it; so is the conformance
 * suite's environment (test/conformance), which declares each case's variables.
 */
export function buildEnvironment<N extends string>(name: N, declare: (env: Environment) => void): BuiltEnvironment<N> {
  const env = new Environment({
    enableOptionalTypes: true,
    homogeneousAggregateLiterals: false,
    unlistedVariablesAreDyn: false,
    limits: parseLimits,
  });
  let evaluator: object | undefined;
  registerStandardLibrary(env);
  registerExtensions(env, (instance) => {
    evaluator ??= instance;
  });
  declare(env);
  // cel-js keeps its evaluator private; one evaluation of a registered function hands it over
  // (`this` inside a handler), so the step meter can be installed on it.
  env.evaluate('"ab".reverse()');
  // An invariant of the cel-js version we pin; an upgrade that breaks it fails every test at once.
  assert(evaluator, 'cel: could not reach the evaluator to install the step meter');
  const meter = new StepMeter();
  meter.install(evaluator);
  return { name, env, meter };
}

const built = new Map<CelEnvironmentName, BuiltEnvironment>();

/** The environment of that name, built on first use and shared afterwards. */
export function celEnvironment(name: CelEnvironmentName): BuiltEnvironment {
  let env = built.get(name);
  if (!env) {
    if (!celEnvironmentNames.includes(name)) throw new TypeError(`cel: unknown environment ${JSON.stringify(name)}`);
    env = buildEnvironment(name, declarations[name]);
    built.set(name, env);
  }
  return env;
}
