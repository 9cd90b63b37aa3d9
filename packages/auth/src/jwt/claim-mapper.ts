import { CelTypes, compile, userActivation, type CelProgram } from '@plat/cel';
import { AuthenticationError, AuthSpecError, type UserInfo } from '../interface.js';
import { jsonType } from './id-token-verifier.js';
import type { JwtAuthenticatorSpec } from './jwt-authenticator-spec.js';
import { goQuote } from '@plat/api-model';

type Claims = Record<string, unknown>;

/**
 * The extra key naming the credential a user authenticated with (Kubernetes'
 * `authentication.kubernetes.io/credential-id`): `JTI=<jti>` for a JWT with a `jti`.
 */
export const credentialIdExtraKey = 'authentication.plat.io/credential-id';

interface Rule {
  program: CelProgram;
  message: string;
}

// Kubernetes compiles claim mappings as `dyn` and checks the value's type after evaluation;
// validation rules must type-check to bool.
function mustCompile(env: 'claims' | 'user', expression: string, types: string[]): CelProgram {
  const result = compile(env, expression, types);
  // The config loader rejects what does not compile; reaching this is a wiring bug.
  if (!result.ok) throw new AuthSpecError(`expression ${JSON.stringify(expression)}: ${result.issue.detail}`);
  return result.program;
}

/** Unwraps a CEL result (optionals, ints) into a plain value. */
function plain(value: unknown): unknown {
  if (value && typeof value === 'object' && (value as object).constructor?.name === 'Optional') {
    const opt = value as { hasValue(): boolean; value(): unknown };
    return opt.hasValue() ? plain(opt.value()) : null;
  }
  if (typeof value === 'bigint') return Number(value);
  return value;
}

/** A CEL string or list-of-strings result (`""`, `[]` and null mean absent; empty items are dropped). */
function toStringList(value: unknown, what: string): string[] {
  const v = plain(value);
  if (v === null || v === undefined) return [];
  if (typeof v === 'string') return v === '' ? [] : [v];
  if (Array.isArray(v)) {
    const out: string[] = [];
    for (const item of v) {
      const p = plain(item);
      if (typeof p !== 'string') throw new AuthenticationError(`${what}: expression must return a string or a list of strings`);
      if (p !== '') out.push(p);
    }
    return out;
  }
  throw new AuthenticationError(`${what}: expression must return a string or a list of strings`);
}

function claimString(claims: Claims, name: string, what: string): string {
  const v = claims[name];
  if (typeof v !== 'string') {
    throw new AuthenticationError(`oidc: parse ${what} claims ${goQuote(name)}: ${v === undefined ? 'claim not present' : `json: cannot unmarshal ${jsonType(v)} into Go value of type string`}`);
  }
  return v;
}

/**
 * Turns verified claims into a user, as Kubernetes' OIDC authenticator does: claim or CEL
 * mappings for username, groups, uid and extra; the email_verified rule; required claims and
 * claimValidationRules; then userValidationRules. Programs compiled by @plat/config are used as
 * they are; an expression given without its program is compiled here, once.
 */
export class ClaimMapper {
  private readonly username?: CelProgram;
  private readonly groups?: CelProgram;
  private readonly uid?: CelProgram;
  private readonly extra: { key: string; program: CelProgram }[] = [];
  private readonly requiredClaims: { claim: string; value: string }[] = [];
  private readonly claimRules: Rule[] = [];
  private readonly userRules: Rule[] = [];
  readonly usesCel: boolean;

  constructor(private readonly spec: JwtAuthenticatorSpec) {
    const m = spec.claimMappings;
    if (m.username.expression) this.username = m.username.program ?? mustCompile('claims', m.username.expression, [CelTypes.Any]);
    if (m.groups?.expression) this.groups = m.groups.program ?? mustCompile('claims', m.groups.expression, [CelTypes.Any]);
    if (m.uid?.expression) this.uid = m.uid.program ?? mustCompile('claims', m.uid.expression, [CelTypes.Any]);
    for (const e of m.extra ?? []) {
      this.extra.push({ key: e.key, program: e.program ?? mustCompile('claims', e.valueExpression, [CelTypes.Any]) });
    }
    for (const r of spec.claimValidationRules ?? []) {
      if (r.expression) this.claimRules.push({ program: r.program ?? mustCompile('claims', r.expression, [CelTypes.Bool]), message: r.message ?? '' });
      else if (r.claim) this.requiredClaims.push({ claim: r.claim, value: r.requiredValue ?? '' });
    }
    for (const r of spec.userValidationRules ?? []) {
      this.userRules.push({ program: r.program ?? mustCompile('user', r.expression, [CelTypes.Bool]), message: r.message ?? '' });
    }
    this.usesCel = Boolean(this.username || this.groups || this.uid || this.extra.length || this.claimRules.length || this.userRules.length);
  }

  map(claims: Claims): UserInfo {
    const user: UserInfo = { username: this.mapUsername(claims), groups: this.mapGroups(claims) };
    const uid = this.mapUid(claims);
    if (uid) user.uid = uid;
    const extra = this.mapExtra(claims);
    if (Object.keys(extra).length) user.extra = extra;

    for (const { claim, value } of this.requiredClaims) {
      if (!(claim in claims)) throw new AuthenticationError(`oidc: required claim ${claim} not present in ID token`);
      const got = claims[claim];
      if (typeof got !== 'string') throw new AuthenticationError(`oidc: parse claim ${claim}: json: cannot unmarshal ${jsonType(got)} into Go value of type string`);
      if (got !== value) throw new AuthenticationError(`oidc: required claim ${claim} value does not match. Got = ${got}, want = ${value}`);
    }
    this.checkRules(this.claimRules, { claims }, 'oidc: error evaluating claim validation expression');
    if (this.userRules.length) {
      this.checkRules(this.userRules, userActivation(user), 'oidc: error evaluating user info validation rule');
    }
    return user;
  }

  private evaluate(program: CelProgram, activation: Record<string, unknown>, what: string): unknown {
    try {
      return program.evaluate(activation);
    } catch (err) {
      throw new AuthenticationError(`oidc: error evaluating ${what} claim expression: ${(err as Error).message}`, { cause: err });
    }
  }

  private mapUsername(claims: Claims): string {
    const mapping = this.spec.claimMappings.username;
    if (this.username) {
      const v = plain(this.evaluate(this.username, { claims }, 'username'));
      if (typeof v !== 'string') {
        throw new AuthenticationError('oidc: error evaluating username claim expression: username claim expression must return a string');
      }
      // Only an expression is refused an empty username; Kubernetes accepts an empty claim.
      if (v === '') throw new AuthenticationError('oidc: empty username via CEL expression is not allowed');
      return v;
    }
    const claim = mapping.claim ?? 'sub';
    const username = claimString(claims, claim, 'username');
    if (claim === 'email' && 'email_verified' in claims) {
      const verified = claims.email_verified;
      if (typeof verified !== 'boolean') {
        throw new AuthenticationError(`oidc: parse 'email_verified' claim: json: cannot unmarshal ${jsonType(verified)} into Go value of type bool`);
      }
      if (!verified) throw new AuthenticationError('oidc: email not verified');
    }
    return mapping.prefix ? mapping.prefix + username : username;
  }

  private mapGroups(claims: Claims): string[] {
    const mapping = this.spec.claimMappings.groups;
    if (mapping?.claim) {
      if (!(mapping.claim in claims)) return [];
      const v = claims[mapping.claim];
      let groups: string[];
      if (typeof v === 'string') groups = [v];
      else if (Array.isArray(v) && v.every((g) => typeof g === 'string')) groups = [...(v as string[])];
      else if (v === null) groups = [];
      else throw new AuthenticationError(`oidc: parse groups claim ${goQuote(mapping.claim)}: json: cannot unmarshal ${jsonType(v)} into Go value of type string`);
      return mapping.prefix ? groups.map((g) => mapping.prefix + g) : groups;
    }
    if (!this.groups) return [];
    try {
      return toStringList(this.evaluate(this.groups, { claims }, 'group'), 'oidc: error evaluating group claim expression');
    } catch (err) {
      throw err instanceof Error && err.message.startsWith('oidc:') ? err : new AuthenticationError(String(err));
    }
  }

  private mapUid(claims: Claims): string {
    const mapping = this.spec.claimMappings.uid;
    if (mapping?.claim) return claimString(claims, mapping.claim, 'uid');
    if (!this.uid) return '';
    const v = plain(this.evaluate(this.uid, { claims }, 'uid'));
    if (typeof v !== 'string') throw new AuthenticationError('oidc: error evaluating uid claim expression: uid claim expression must return a string');
    return v;
  }

  /** The credential id first (a string `jti`, even without extra mappings), then the extra mappings. */
  private mapExtra(claims: Claims): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    const jti = claims.jti;
    if (typeof jti === 'string' && jti !== '') out[credentialIdExtraKey] = [`JTI=${jti}`];
    for (const { key, program } of this.extra) {
      const values = toStringList(this.evaluate(program, { claims }, 'extra'), `oidc: error evaluating extra claim expression: ${program.expression}`);
      if (values.length) out[key] = values;
    }
    return out;
  }

  private checkRules(rules: Rule[], activation: Record<string, unknown>, prefix: string): void {
    for (const rule of rules) {
      let result: unknown;
      try {
        result = plain(rule.program.evaluate(activation));
      } catch (err) {
        throw new AuthenticationError(`${prefix}: ${(err as Error).message}`, { cause: err });
      }
      if (typeof result !== 'boolean') throw new AuthenticationError(`${prefix}: validation expression must return a boolean`);
      if (!result) {
        throw new AuthenticationError(`${prefix}: validation expression '${rule.program.expression}' failed: ${rule.message}`);
      }
    }
  }
}
