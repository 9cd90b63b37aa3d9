import type { NamedAuthorizer } from './authorizer-chain.js';
import { createAlwaysAllowAuthorizer, createAlwaysDenyAuthorizer } from './mode-authorizers.js';

/** `--authorization-mode` values this server knows (Webhook and others come from the config file). */
export const authorizationModes = ['AlwaysAllow', 'AlwaysDeny'] as const;
export type AuthorizationMode = (typeof authorizationModes)[number];

/** Validates `--authorization-mode` as Kubernetes does; an empty answer means valid. */
export function validateAuthorizationModes(modes: readonly string[]): string[] {
  const errors: string[] = [];
  if (modes.length === 0) errors.push('at least one authorization-mode must be passed');
  for (const mode of modes) {
    if (!(authorizationModes as readonly string[]).includes(mode)) errors.push(`authorization-mode ${JSON.stringify(mode)} is not a valid mode`);
  }
  if (new Set(modes).size !== modes.length) errors.push(`authorization-mode ${JSON.stringify(modes.join(','))} has mode specified more than once`);
  return errors;
}

/** The authorizers of validated `--authorization-mode` values, in order. */
export function authorizersForModes(modes: readonly AuthorizationMode[]): NamedAuthorizer[] {
  return modes.map((mode) => ({
    name: mode,
    authorizer: mode === 'AlwaysAllow' ? createAlwaysAllowAuthorizer() : createAlwaysDenyAuthorizer(),
  }));
}
