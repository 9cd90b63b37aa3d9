/**
 * The legacy authorization flags (`--authorization-mode` and `--authorization-webhook-*`) as an
 * AuthorizationConfiguration, the way kube-apiserver converts them
 * (pkg/kubeapiserver/options/authorization.go, buildAuthorizationConfiguration): a built-in mode
 * becomes an authorizer named after its type in lowercase; Webhook becomes an authorizer named
 * `webhook` with a 30s timeout and failure policy NoOpinion. The flag checks keep Kubernetes' texts.
 */
import { goQuote } from '@plat/api-model';
import { loadAuthorizationConfiguration, defaultAuthorizerTypes, type AuthorizationConfiguration, type AuthorizationLoadOptions } from './authorization.js';
import { fileError, type LoadResult } from './document.js';
import { apiVersion } from './schemas.js';

export interface AuthorizationFlags {
  /** --authorization-mode, comma-separated values already split; default AlwaysAllow. */
  modes?: readonly string[];
  /** --authorization-webhook-config-file (a kubeconfig-format file); made absolute by the caller. */
  webhookConfigFile?: string;
  /** --authorization-webhook-version; default v1beta1. */
  webhookVersion?: string;
  /** --authorization-webhook-cache-authorized-ttl; default 5m. */
  webhookCacheAuthorizedTTL?: string;
  /** --authorization-webhook-cache-unauthorized-ttl; default 30s. */
  webhookCacheUnauthorizedTTL?: string;
}

/** kube-apiserver's flag checks, with its messages. */
export function validateAuthorizationFlags(flags: AuthorizationFlags, supportedTypes: readonly string[] = defaultAuthorizerTypes): string[] {
  const modes = flags.modes ?? ['AlwaysAllow'];
  const errors: string[] = [];
  if (modes.length === 0) errors.push('at least one authorization-mode must be passed');
  for (const mode of modes) {
    if (!supportedTypes.includes(mode)) errors.push(`authorization-mode ${goQuote(mode)} is not a valid mode`);
    if (mode === 'Webhook' && !flags.webhookConfigFile) errors.push("authorization-mode Webhook's authorization config file not passed");
  }
  if (flags.webhookConfigFile && !modes.includes('Webhook')) errors.push('cannot specify --authorization-webhook-config-file without mode Webhook');
  if (new Set(modes).size !== modes.length) errors.push(`authorization-mode [${modes.map(goQuote).join(' ')}] has mode specified more than once`);
  return errors;
}

/** Builds and validates the AuthorizationConfiguration the flags stand for. */
export function authorizationConfigurationFromFlags(
  flags: AuthorizationFlags,
  options: AuthorizationLoadOptions = {},
): LoadResult<AuthorizationConfiguration> {
  const problems = validateAuthorizationFlags(flags, options.supportedTypes ?? defaultAuthorizerTypes);
  if (problems.length > 0) return { ok: false, errors: problems.map(fileError), warnings: [] };
  const authorizers = (flags.modes ?? ['AlwaysAllow']).map((mode) =>
    mode === 'Webhook'
      ? {
          type: 'Webhook',
          name: 'webhook',
          webhook: {
            // Timeout and failure policy are required in the file; the flags never had them.
            timeout: '30s',
            failurePolicy: 'NoOpinion',
            subjectAccessReviewVersion: flags.webhookVersion || 'v1beta1',
            authorizedTTL: flags.webhookCacheAuthorizedTTL || '5m',
            unauthorizedTTL: flags.webhookCacheUnauthorizedTTL || '30s',
            connectionInfo: { type: 'PlatConfigFile', platConfigFile: flags.webhookConfigFile },
          },
        }
      : { type: mode, name: mode.toLowerCase() },
  );
  return loadAuthorizationConfiguration(JSON.stringify({ apiVersion, kind: 'AuthorizationConfiguration', authorizers }), options);
}
