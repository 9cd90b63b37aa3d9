import path from 'node:path';
import type { Argv } from 'yargs';
import { defaultSigningAlgorithms } from '@plat/auth';
import { validateAuthorizationFlags, validateLegacyFlags } from '@plat/config';
import { defaultAuthorizationMode, defaultOidcSigningAlgs, supportedAuthorizerTypes, type AuthOptions } from '@plat/control-plane';
import { goQuote } from '@plat/api-model';

const authenticationFlags = [
  'authentication-config',
  'anonymous-auth',
  'oidc-issuer-url',
  'oidc-client-id',
  'oidc-ca-file',
  'oidc-username-claim',
  'oidc-username-prefix',
  'oidc-groups-claim',
  'oidc-groups-prefix',
  'oidc-required-claim',
  'oidc-signing-algs',
];
const authorizationFlags = [
  'authorization-config',
  'authorization-mode',
  'authorization-webhook-config-file',
  'authorization-webhook-version',
  'authorization-webhook-cache-authorized-ttl',
  'authorization-webhook-cache-unauthorized-ttl',
];

/**
 * Declares the flags of AuthOptions (@plat/control-plane), help texts in our words, names and
 * semantics as kube-apiserver. None has a yargs default, so that "given on the command line" can
 * be told apart from "left at its default" (the mutual exclusions depend on it).
 */
export function declareAuthFlags<T>(y: Argv<T>): Argv<T> {
  return y
    .group(authenticationFlags, 'Authentication flags:')
    .option('authentication-config', {
      type: 'string',
      description:
        'File with an AuthenticationConfiguration (apiserver.plat.io/v1beta1): JWT authenticators and anonymous access. Reloaded automatically when it changes; an invalid new version is logged and ignored. Excludes the --oidc-* flags.',
    })
    .option('anonymous-auth', {
      type: 'boolean',
      defaultDescription: 'true',
      description:
        'Requests that no other authenticator rejects are served as user system:anonymous (group system:unauthenticated) and then authorized like any other. Requests with an invalid credential still get 401. Not with an anonymous section in --authentication-config; turned off with --authorization-mode=AlwaysAllow.',
    })
    .option('oidc-issuer-url', {
      type: 'string',
      description: 'HTTPS URL of the OpenID issuer; its discovery document and keys verify JWT bearer tokens. Needs --oidc-client-id.',
    })
    .option('oidc-client-id', { type: 'string', description: 'The audience every OpenID token must carry. Needs --oidc-issuer-url.' })
    .option('oidc-ca-file', {
      type: 'string',
      description: 'PEM file of the certificate authorities that sign the issuer\'s serving certificate; the system roots when unset.',
    })
    .option('oidc-username-claim', {
      type: 'string',
      defaultDescription: '"sub"',
      description: 'The claim that holds the username. Claims other than email are prefixed with the issuer URL unless --oidc-username-prefix says otherwise.',
    })
    .option('oidc-username-prefix', {
      type: 'string',
      description: 'Prefix of usernames from tokens; "-" for none. Unset: "<issuer-url>#", or nothing for the email claim.',
    })
    .option('oidc-groups-claim', { type: 'string', description: 'The claim (a string or a list of strings) that holds the user\'s groups.' })
    .option('oidc-groups-prefix', { type: 'string', description: 'Prefix of group names from tokens.' })
    .option('oidc-required-claim', {
      type: 'string',
      array: true,
      description: 'key=value pairs (repeatable or comma separated): claims every token must carry with exactly that value.',
    })
    .option('oidc-signing-algs', {
      type: 'string',
      defaultDescription: '"RS256"',
      description: `Comma-separated signature algorithms accepted in tokens, out of ${defaultSigningAlgorithms.join(', ')}.`,
    })
    .group(authorizationFlags, 'Authorization flags:')
    .option('authorization-config', {
      type: 'string',
      description:
        'File with an AuthorizationConfiguration (apiserver.plat.io/v1beta1): the ordered authorizers (RBAC, Node, Webhook, AlwaysAllow, AlwaysDeny) after the built-in rule (system:masters may do everything). Reloaded automatically when it changes. Excludes --authorization-mode and --authorization-webhook-*.',
    })
    .option('authorization-mode', {
      type: 'string',
      defaultDescription: `"${defaultAuthorizationMode}"`,
      description:
        "Ordered list of plug-ins to do authorization on secure port, after the built-in rule (system:masters may do everything). Comma-delimited list of: AlwaysAllow,AlwaysDeny,Node,RBAC,Webhook. Without RBAC, built-in rules also let authenticated users read clustertrustbundles, discovery, OpenAPI, version and health; with RBAC that is the bootstrap policy's.",
    })
    .option('authorization-webhook-config-file', {
      type: 'string',
      description: 'With --authorization-mode=Webhook: a PlatConfig (kubeconfig format) file saying where and how to reach the webhook.',
    })
    .option('authorization-webhook-version', { type: 'string', defaultDescription: '"v1beta1"', description: 'SubjectAccessReview version sent to the webhook: v1 or v1beta1.' })
    .option('authorization-webhook-cache-authorized-ttl', { type: 'string', defaultDescription: '"5m0s"', description: 'How long allowed answers of the webhook are cached.' })
    .option('authorization-webhook-cache-unauthorized-ttl', {
      type: 'string',
      defaultDescription: '"30s"',
      description: 'How long other answers of the webhook are cached.',
    });
}

type RawFlags = Record<string, unknown>;

function given(raw: RawFlags, flag: string): boolean {
  const v = raw[flag];
  return v !== undefined && !(Array.isArray(v) && v.length === 0);
}

function str(raw: RawFlags, flag: string): string | undefined {
  const v = raw[flag];
  if (Array.isArray(v)) return v.length ? String(v[v.length - 1]) : undefined;
  return v === undefined ? undefined : String(v);
}

function list(raw: RawFlags, flag: string): string[] {
  const v = raw[flag];
  const values = Array.isArray(v) ? v.map(String) : v === undefined ? [] : [String(v)];
  return values.flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s !== '');
}

function absolute(file: string | undefined): string | undefined {
  return file ? path.resolve(file) : undefined;
}

/** Parses and cross-checks the flags (Kubernetes' messages); problems are appended to `errors`. */
export function completeAuthOptions(raw: RawFlags, errors: string[]): AuthOptions {
  const setFlags = [...authenticationFlags, ...authorizationFlags].filter((f) => given(raw, f));

  const requiredClaims: Record<string, string> = {};
  for (const pair of list(raw, 'oidc-required-claim')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) errors.push(`invalid argument ${goQuote(pair)} for "--oidc-required-claim" flag: ${pair} must be formatted as key=value`);
    else requiredClaims[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  const signingAlgs = given(raw, 'oidc-signing-algs') ? list(raw, 'oidc-signing-algs') : [...defaultOidcSigningAlgs];
  for (const alg of signingAlgs) {
    if (!defaultSigningAlgorithms.includes(alg)) {
      errors.push(`--oidc-signing-algs: unsupported signing algorithm ${goQuote(alg)}, supported: ${defaultSigningAlgorithms.join(', ')}`);
    }
  }

  const anonymous = raw['anonymous-auth'];
  const modes = given(raw, 'authorization-mode') ? list(raw, 'authorization-mode') : [defaultAuthorizationMode];
  const authorization: AuthOptions['authorization'] = {
    modes,
    webhookConfigFile: absolute(str(raw, 'authorization-webhook-config-file')),
    webhookVersion: str(raw, 'authorization-webhook-version'),
    webhookCacheAuthorizedTTL: str(raw, 'authorization-webhook-cache-authorized-ttl'),
    webhookCacheUnauthorizedTTL: str(raw, 'authorization-webhook-cache-unauthorized-ttl'),
  };
  const authenticationConfigFile = absolute(str(raw, 'authentication-config'));
  const authorizationConfigFile = absolute(str(raw, 'authorization-config'));

  errors.push(...validateLegacyFlags({ authenticationConfig: authenticationConfigFile, authorizationConfig: authorizationConfigFile, setFlags }));
  if (!authorizationConfigFile) errors.push(...validateAuthorizationFlags(authorization, supportedAuthorizerTypes));
  if (given(raw, 'oidc-issuer-url') !== given(raw, 'oidc-client-id')) errors.push('oidc-issuer-url and oidc-client-id must be specified together');

  return {
    authenticationConfigFile,
    authorizationConfigFile,
    anonymousAuth: typeof anonymous === 'boolean' ? anonymous : undefined,
    oidc: {
      issuerURL: str(raw, 'oidc-issuer-url'),
      clientID: str(raw, 'oidc-client-id'),
      caFile: absolute(str(raw, 'oidc-ca-file')),
      usernameClaim: str(raw, 'oidc-username-claim'),
      usernamePrefix: str(raw, 'oidc-username-prefix'),
      groupsClaim: str(raw, 'oidc-groups-claim'),
      groupsPrefix: str(raw, 'oidc-groups-prefix'),
      requiredClaims,
      signingAlgs,
    },
    authorization,
    setFlags,
  };
}
