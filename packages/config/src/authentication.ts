/**
 * AuthenticationConfiguration: decoding, validation and the loaded (typed) form.
 *
 * Rules and messages follow Kubernetes' `ValidateAuthenticationConfiguration`
 * (k8s.io/apiserver/pkg/apis/apiserver/validation), with `plat.io` as the reserved extra-key
 * domain, plus what the spec and kube-apiserver add around it (unique anonymous paths, the
 * `--anonymous-auth` conflict).
 */
import { X509Certificate } from 'node:crypto';
import { CelTypes, type CelProgram } from '@plat/cel';
import { fieldError, FieldError, FieldErrorType, FieldPath, goQuote } from '@plat/api-model';
import { compileField } from './cel-expression.js';
import { decodeDocument, fileError, type LoadResult } from './document.js';
import { isDomainPrefixedPath } from './names.js';
import { authenticationConfigurationSchema, type JWTAuthenticatorInput } from './schemas.js';

export const maxJWTAuthenticators = 64;

export interface Issuer {
  url: string;
  discoveryURL?: string;
  certificateAuthority?: string;
  audiences: string[];
  audienceMatchPolicy?: 'MatchAny';
}

export interface ClaimValidationRule {
  claim?: string;
  requiredValue?: string;
  expression?: string;
  message?: string;
  /** Compiled `expression` (type bool), when the rule is an expression rule. */
  program?: CelProgram;
}

export interface PrefixedClaimOrExpression {
  claim?: string;
  /** Set (possibly to "") whenever claim is set. */
  prefix?: string;
  expression?: string;
  /** Compiled `expression` (any result type; check the value after evaluation). */
  program?: CelProgram;
}

export interface ClaimOrExpression {
  claim?: string;
  expression?: string;
  program?: CelProgram;
}

export interface ExtraMapping {
  key: string;
  valueExpression: string;
  program: CelProgram;
}

export interface ClaimMappings {
  username: PrefixedClaimOrExpression;
  groups?: PrefixedClaimOrExpression;
  uid?: ClaimOrExpression;
  extra: ExtraMapping[];
}

export interface UserValidationRule {
  expression: string;
  message?: string;
  program: CelProgram;
}

export interface JWTAuthenticator {
  issuer: Issuer;
  claimValidationRules: ClaimValidationRule[];
  claimMappings: ClaimMappings;
  userValidationRules: UserValidationRule[];
}

export interface AnonymousAuthConfig {
  enabled: boolean;
  conditions: { path: string }[];
}

export interface AuthenticationConfiguration {
  apiVersion: string;
  kind: 'AuthenticationConfiguration';
  jwt: JWTAuthenticator[];
  /** Present only when the file has an `anonymous` section. */
  anonymous?: AnonymousAuthConfig;
}

export interface AuthenticationLoadOptions {
  /** Whether `--anonymous-auth` was set explicitly; it may not be combined with an `anonymous` section. */
  anonymousAuthFlagSet?: boolean;
  /** Issuers no JWT authenticator may use (for example the service-account token issuer). */
  disallowedIssuers?: readonly string[];
}

const reservedDomain = 'plat.io';

/** Whether an extra key's domain is `plat.io` or one of its subdomains. */
export function isReservedExtraKey(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  const domain = key.slice(0, slash);
  return domain === reservedDomain || domain.endsWith(`.${reservedDomain}`);
}

/** Go's url.Parse is lenient; these are the parts Kubernetes' issuer checks look at. */
function parseURLLike(raw: string): { error?: string; scheme: string; user: boolean; query: string; fragment: string } {
  if (/[\x00-\x1f\x7f]/.test(raw)) return { error: `parse ${goQuote(raw)}: net/url: invalid control character in URL`, scheme: '', user: false, query: '', fragment: '' };
  const hash = raw.indexOf('#');
  const fragment = hash < 0 ? '' : raw.slice(hash + 1);
  const beforeFragment = hash < 0 ? raw : raw.slice(0, hash);
  const q = beforeFragment.indexOf('?');
  const query = q < 0 ? '' : beforeFragment.slice(q + 1);
  const rest = q < 0 ? beforeFragment : beforeFragment.slice(0, q);
  const schemeMatch = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (!schemeMatch && /^[^/]*:/.test(rest)) {
    return { error: `parse ${goQuote(raw)}: missing protocol scheme`, scheme: '', user: false, query, fragment };
  }
  const scheme = schemeMatch ? schemeMatch[1]!.toLowerCase() : '';
  const afterScheme = schemeMatch ? rest.slice(schemeMatch[0].length) : rest;
  let user = false;
  if (afterScheme.startsWith('//')) {
    const authority = afterScheme.slice(2).split('/')[0] ?? '';
    user = authority.includes('@');
    if (scheme === 'https' || scheme === 'http') {
      try {
        new URL(`${scheme}://${authority}`);
      } catch {
        return { error: `parse ${goQuote(raw)}: invalid host or port`, scheme, user, query, fragment };
      }
    }
  }
  return { scheme, user, query, fragment };
}

function validateURL(url: string, path: string, disallowed: ReadonlySet<string>): FieldError[] {
  const errs: FieldError[] = [];
  if (disallowed.has(url)) {
    errs.push(fieldError.invalid(path, url, `URL must not overlap with disallowed issuers: [${[...disallowed].sort().join(' ')}]`));
  }
  const u = parseURLLike(url);
  if (u.error) {
    errs.push(fieldError.invalid(path, url, u.error));
    return errs;
  }
  if (u.scheme !== 'https') errs.push(fieldError.invalid(path, url, 'URL scheme must be https'));
  if (u.user) errs.push(fieldError.invalid(path, url, 'URL must not contain a username or password'));
  if (u.query.length > 0) errs.push(fieldError.invalid(path, url, 'URL must not contain a query'));
  if (u.fragment.length > 0) errs.push(fieldError.invalid(path, url, 'URL must not contain a fragment'));
  return errs;
}

/** Kubernetes' cert.NewPoolFromBytes: every CERTIFICATE block must parse; at least one is needed. */
export function certificateAuthorityError(pem: string): string | undefined {
  const blocks = pem.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g);
  let count = 0;
  for (const block of blocks) {
    if (block[1] !== 'CERTIFICATE') continue;
    const der = Buffer.from(block[2]!.replace(/\s+/g, ''), 'base64');
    try {
      new X509Certificate(der);
    } catch (error) {
      return `x509: malformed certificate: ${(error as Error).message}`;
    }
    count++;
  }
  if (count === 0) return 'data does not contain any valid RSA or ECDSA certificates';
  return undefined;
}

function validateIssuer(input: JWTAuthenticatorInput['issuer'], path: FieldPath, disallowed: ReadonlySet<string>): FieldError[] {
  const errs: FieldError[] = [];
  const url = input?.url ?? '';
  const urlPath = path.child('url').toString();
  if (url === '') errs.push(fieldError.required(urlPath));
  else errs.push(...validateURL(url, urlPath, disallowed));

  const discoveryURL = input?.discoveryURL ?? '';
  if (discoveryURL !== '') {
    const p = path.child('discoveryURL').toString();
    if (url !== '' && url.replace(/\/+$/, '') === discoveryURL.replace(/\/+$/, '')) {
      errs.push(fieldError.invalid(p, discoveryURL, 'discoveryURL must be different from URL'));
    }
    errs.push(...validateURL(discoveryURL, p, new Set()));
  }

  const audiences = input?.audiences ?? [];
  const audPath = path.child('audiences');
  const policy = input?.audienceMatchPolicy ?? '';
  const policyPath = path.child('audienceMatchPolicy').toString();
  if (audiences.length === 0) {
    errs.push(fieldError.required(audPath, `at least one ${audPath.toString()} is required`));
  } else {
    const seen = new Set<string>();
    audiences.forEach((audience, i) => {
      const p = audPath.index(i);
      if (audience === '') errs.push(fieldError.required(p));
      if (seen.has(audience)) errs.push(fieldError.duplicate(p, audience));
      seen.add(audience);
    });
    if (audiences.length > 1 && policy !== 'MatchAny') {
      errs.push(fieldError.invalid(policyPath, policy, 'audienceMatchPolicy must be MatchAny for multiple audiences'));
    }
    if (audiences.length === 1 && policy !== '' && policy !== 'MatchAny') {
      errs.push(fieldError.invalid(policyPath, policy, 'audienceMatchPolicy must be empty or MatchAny for single audience'));
    }
  }

  const ca = input?.certificateAuthority ?? '';
  if (ca !== '') {
    const problem = certificateAuthorityError(ca);
    if (problem) errs.push(fieldError.invalid(path.child('certificateAuthority'), '<omitted>', problem));
  }
  return errs;
}

interface EmailState {
  usesEmailClaim: boolean;
  usesEmailVerifiedClaim: boolean;
}

function validatePrefixClaimOrExpression(
  input: { claim?: string; prefix?: string; expression?: string } | undefined,
  path: FieldPath,
  required: boolean,
  errs: FieldError[],
): PrefixedClaimOrExpression | undefined {
  const claim = input?.claim ?? '';
  const expression = input?.expression ?? '';
  if (claim !== '' && expression !== '') {
    errs.push(fieldError.invalid(path, '', "claim and expression can't both be set"));
    return undefined;
  }
  if (claim === '' && expression === '') {
    if (required) errs.push(fieldError.required(path, 'claim or expression is required'));
    return undefined;
  }
  if (expression !== '') {
    if (input?.prefix !== undefined) errs.push(fieldError.invalid(path.child('prefix'), input.prefix, 'may not be specified when expression is set'));
    const compiled = compileField(path.child('expression').toString(), 'claims', expression, [CelTypes.Any]);
    if (compiled.error) {
      errs.push(compiled.error);
      return undefined;
    }
    return { expression, program: compiled.program };
  }
  if (input?.prefix === undefined) {
    errs.push(
      fieldError.required(path.child('prefix'), 'prefix is required when claim is set. It can be set to an empty string to disable prefixing'),
    );
  }
  return { claim, prefix: input?.prefix };
}

function validateJWTAuthenticator(
  input: JWTAuthenticatorInput,
  path: FieldPath,
  disallowed: ReadonlySet<string>,
  errs: FieldError[],
): JWTAuthenticator {
  const state: EmailState = { usesEmailClaim: false, usesEmailVerifiedClaim: false };
  errs.push(...validateIssuer(input.issuer, path.child('issuer'), disallowed));

  // claimValidationRules
  const rulesPath = path.child('claimValidationRules');
  const seenClaims = new Set<string>();
  const seenExpressions = new Set<string>();
  const claimValidationRules: ClaimValidationRule[] = [];
  (input.claimValidationRules ?? []).forEach((rule, i) => {
    const p = rulesPath.index(i);
    const claim = rule.claim ?? '';
    const expression = rule.expression ?? '';
    if (claim !== '' && expression !== '') {
      errs.push(fieldError.invalid(p, claim, "claim and expression can't both be set"));
    } else if (claim === '' && expression === '') {
      errs.push(fieldError.required(p, 'claim or expression is required'));
    } else if (claim !== '') {
      if ((rule.message ?? '') !== '') errs.push(fieldError.invalid(p.child('message'), rule.message, 'may not be specified when claim is set'));
      if (seenClaims.has(claim)) errs.push(fieldError.duplicate(p.child('claim'), claim));
      seenClaims.add(claim);
      claimValidationRules.push({ claim, requiredValue: rule.requiredValue ?? '' });
    } else {
      if ((rule.requiredValue ?? '') !== '') {
        errs.push(fieldError.invalid(p.child('requiredValue'), rule.requiredValue, 'may not be specified when expression is set'));
      }
      if (seenExpressions.has(expression)) {
        errs.push(fieldError.duplicate(p.child('expression'), expression));
        return;
      }
      seenExpressions.add(expression);
      const compiled = compileField(p.child('expression').toString(), 'claims', expression, [CelTypes.Bool]);
      if (compiled.error) {
        errs.push(compiled.error);
        return;
      }
      if (compiled.program.selects('claims', 'email_verified')) state.usesEmailVerifiedClaim = true;
      claimValidationRules.push({ expression, message: rule.message, program: compiled.program });
    }
  });

  // claimMappings
  const mappingsPath = path.child('claimMappings');
  const m = input.claimMappings;
  const username = validatePrefixClaimOrExpression(m?.username, mappingsPath.child('username'), true, errs);
  if (username?.program) {
    state.usesEmailClaim ||= username.program.selects('claims', 'email');
    state.usesEmailVerifiedClaim ||= username.program.selects('claims', 'email_verified');
  }
  const groups = validatePrefixClaimOrExpression(m?.groups, mappingsPath.child('groups'), false, errs);

  let uid: ClaimOrExpression | undefined;
  const uidClaim = m?.uid?.claim ?? '';
  const uidExpression = m?.uid?.expression ?? '';
  if (uidClaim !== '' && uidExpression !== '') {
    errs.push(fieldError.invalid(mappingsPath.child('uid'), '', "claim and expression can't both be set"));
  } else if (uidExpression !== '') {
    const compiled = compileField(mappingsPath.child('uid', 'expression').toString(), 'claims', uidExpression, [CelTypes.Any]);
    if (compiled.error) errs.push(compiled.error);
    else uid = { expression: uidExpression, program: compiled.program };
  } else if (uidClaim !== '') {
    uid = { claim: uidClaim };
  }

  const extra: ExtraMapping[] = [];
  const seenKeys = new Set<string>();
  (m?.extra ?? []).forEach((mapping, i) => {
    const p = mappingsPath.child('extra').index(i);
    const keyPath = p.child('key').toString();
    const key = mapping.key ?? '';
    errs.push(...isDomainPrefixedPath(keyPath, key));
    if (key !== key.toLowerCase()) errs.push(fieldError.invalid(keyPath, key, 'must be lowercase'));
    if (isReservedExtraKey(key)) errs.push(fieldError.invalid(keyPath, key, `${reservedDomain} and its subdomains are reserved for plat use`));
    if (seenKeys.has(key)) {
      errs.push(fieldError.duplicate(keyPath, key));
      return;
    }
    seenKeys.add(key);
    const valueExpression = mapping.valueExpression ?? '';
    if (valueExpression === '') {
      errs.push(fieldError.required(p.child('valueExpression')));
      return;
    }
    const compiled = compileField(p.child('valueExpression').toString(), 'claims', valueExpression, [CelTypes.Any]);
    if (compiled.error) {
      errs.push(compiled.error);
      return;
    }
    if (compiled.program.selects('claims', 'email_verified')) state.usesEmailVerifiedClaim = true;
    extra.push({ key, valueExpression, program: compiled.program });
  });

  if (state.usesEmailClaim && !state.usesEmailVerifiedClaim) {
    errs.push(
      fieldError.invalid(
        mappingsPath.child('username', 'expression'),
        m?.username?.expression ?? '',
        'claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression',
      ),
    );
  }

  // userValidationRules
  const userRules: UserValidationRule[] = [];
  const seenUserExpressions = new Set<string>();
  (input.userValidationRules ?? []).forEach((rule, i) => {
    const p = path.child('userValidationRules').index(i).child('expression');
    const expression = rule.expression ?? '';
    if (expression === '') {
      errs.push(fieldError.required(p));
      return;
    }
    if (seenUserExpressions.has(expression)) {
      errs.push(fieldError.duplicate(p, expression));
      return;
    }
    seenUserExpressions.add(expression);
    const compiled = compileField(p.toString(), 'user', expression, [CelTypes.Bool]);
    if (compiled.error) {
      errs.push(compiled.error);
      return;
    }
    userRules.push({ expression, message: rule.message, program: compiled.program });
  });

  const issuer: Issuer = {
    url: input.issuer?.url ?? '',
    audiences: [...(input.issuer?.audiences ?? [])],
  };
  if (input.issuer?.discoveryURL) issuer.discoveryURL = input.issuer.discoveryURL;
  if (input.issuer?.certificateAuthority) issuer.certificateAuthority = input.issuer.certificateAuthority;
  if (input.issuer?.audienceMatchPolicy) issuer.audienceMatchPolicy = 'MatchAny';
  const claimMappings: ClaimMappings = { username: username ?? {}, extra };
  if (groups) claimMappings.groups = groups;
  if (uid) claimMappings.uid = uid;
  return { issuer, claimValidationRules, claimMappings, userValidationRules: userRules };
}

/**
 * Decodes, validates and compiles an AuthenticationConfiguration file. Never throws for bad input.
 */
export function loadAuthenticationConfiguration(
  data: string | Uint8Array,
  options: AuthenticationLoadOptions = {},
): LoadResult<AuthenticationConfiguration> {
  const decoded = decodeDocument(data, 'AuthenticationConfiguration', authenticationConfigurationSchema);
  if (!decoded.ok) return { ok: false, errors: decoded.errors, warnings: [] };
  if (!decoded.value) {
    return { ok: false, errors: [fileError('the file is empty: an AuthenticationConfiguration needs apiVersion and kind')], warnings: [] };
  }
  const input = decoded.value;
  const errs: FieldError[] = [];
  const root = FieldPath.root('jwt');
  const jwtInput = input.jwt ?? [];
  const jwt: JWTAuthenticator[] = [];
  if (jwtInput.length > maxJWTAuthenticators) {
    errs.push(fieldError.tooMany(root, jwtInput.length, maxJWTAuthenticators));
  } else {
    const disallowed = new Set(options.disallowedIssuers ?? []);
    const seenIssuers = new Set<string>();
    const seenDiscovery = new Set<string>();
    jwtInput.forEach((a, i) => {
      const p = root.index(i);
      jwt.push(validateJWTAuthenticator(a, p, disallowed, errs));
      const url = a.issuer?.url ?? '';
      if (seenIssuers.has(url)) errs.push(fieldError.duplicate(p.child('issuer', 'url'), url));
      seenIssuers.add(url);
      const discoveryURL = a.issuer?.discoveryURL ?? '';
      if (discoveryURL !== '') {
        if (seenDiscovery.has(discoveryURL)) errs.push(fieldError.duplicate(p.child('issuer', 'discoveryURL'), discoveryURL));
        seenDiscovery.add(discoveryURL);
      }
    });
  }

  let anonymous: AnonymousAuthConfig | undefined;
  if (input.anonymous) {
    const conditions = (input.anonymous.conditions ?? []).map((c) => ({ path: c.path ?? '' }));
    anonymous = { enabled: input.anonymous.enabled ?? false, conditions };
    const conditionsPath = FieldPath.root('anonymous', 'conditions');
    if (options.anonymousAuthFlagSet) errs.push(anonymousFlagConflict());
    if (!anonymous.enabled && conditions.length > 0) {
      errs.push(fieldError.invalid(conditionsPath, conditions, 'enabled should be set to true when conditions are defined'));
    }
    const seenPaths = new Set<string>();
    conditions.forEach((c, i) => {
      const p = conditionsPath.index(i).child('path');
      if (c.path === '') errs.push(fieldError.required(p));
      else if (seenPaths.has(c.path)) errs.push(fieldError.duplicate(p, c.path));
      seenPaths.add(c.path);
    });
  }

  if (errs.length > 0) return { ok: false, errors: errs, warnings: [] };
  const config: AuthenticationConfiguration = { apiVersion: input.apiVersion!, kind: 'AuthenticationConfiguration', jwt };
  if (anonymous) config.anonymous = anonymous;
  return { ok: true, config, warnings: [] };
}

/** The anonymous-section conflict as the field error kube-apiserver reports. */
export function anonymousFlagConflict(): FieldError {
  return new FieldError(
    FieldErrorType.Forbidden,
    'anonymous',
    '',
    '--anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file',
  );
}
