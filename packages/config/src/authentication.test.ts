import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadAuthenticationConfiguration, type AuthenticationConfiguration } from './authentication.js';

const caPEM = readFileSync(fileURLToPath(new URL('../test/ca.crt', import.meta.url)), 'utf8');

const header = 'apiVersion: apiserver.plat.io/v1beta1\nkind: AuthenticationConfiguration\n';

function errorsOf(yaml: string, options = {}): string[] {
  const result = loadAuthenticationConfiguration(header + yaml, options);
  return result.ok ? [] : result.errors.map((e) => e.toString());
}

function load(yaml: string): AuthenticationConfiguration {
  const result = loadAuthenticationConfiguration(header + yaml);
  if (!result.ok) throw new Error(result.errors.map((e) => e.toString()).join('\n'));
  return result.config;
}

const jwt = (issuer: string, mappings = 'claimMappings:\n    username:\n      claim: sub\n      prefix: ""\n', extra = '') =>
  `- issuer:\n${issuer}\n  ${mappings}${extra}`;
const issuer = (url = 'https://issuer.example', more = '') => `    url: ${url}\n    audiences: [plat]\n${more}`;

describe('AuthenticationConfiguration', () => {
  it('loads a full configuration with compiled programs', () => {
    const config = load(`jwt:
- issuer:
    url: https://issuer.example/realms/plat
    discoveryURL: https://discovery.example/.well-known/openid-configuration
    certificateAuthority: |
${caPEM
  .trim()
  .split('\n')
  .map((l) => `      ${l}`)
  .join('\n')}
    audiences: [plat, other]
    audienceMatchPolicy: MatchAny
  claimValidationRules:
  - claim: hd
    requiredValue: example.com
  - expression: 'claims.?email_verified.orValue(false) == true'
    message: email must be verified
  claimMappings:
    username:
      expression: 'claims.email'
    groups:
      claim: groups
      prefix: 'oidc:'
    uid:
      claim: sub
    extra:
    - key: example.com/team
      valueExpression: 'claims.?team.orValue("")'
  userValidationRules:
  - expression: "!user.username.startsWith('system:')"
    message: username cannot use the reserved system prefix
anonymous:
  enabled: true
  conditions:
  - path: /livez
  - path: /readyz
`);
    const a = config.jwt[0]!;
    expect(a.issuer.audiences).toEqual(['plat', 'other']);
    expect(a.issuer.audienceMatchPolicy).toBe('MatchAny');
    expect(a.claimValidationRules[0]).toEqual({ claim: 'hd', requiredValue: 'example.com' });
    expect(a.claimValidationRules[1]!.program!.evaluate({ claims: { email_verified: true } })).toBe(true);
    expect(a.claimMappings.username.program!.evaluate({ claims: { email: 'a@example.com' } })).toBe('a@example.com');
    expect(a.claimMappings.groups).toEqual({ claim: 'groups', prefix: 'oidc:' });
    expect(a.claimMappings.uid).toEqual({ claim: 'sub' });
    expect(a.claimMappings.extra[0]!.key).toBe('example.com/team');
    expect(a.userValidationRules[0]!.program.evaluate({ user: { username: 'system:x', uid: '', groups: [], extra: {} } })).toBe(false);
    expect(config.anonymous).toEqual({ enabled: true, conditions: [{ path: '/livez' }, { path: '/readyz' }] });
  });

  it('accepts no authenticators and no anonymous section', () => {
    expect(load('jwt: []\n')).toEqual({ apiVersion: 'apiserver.plat.io/v1beta1', kind: 'AuthenticationConfiguration', jwt: [] });
  });

  describe('issuer', () => {
    it('requires an https URL without user info, query or fragment', () => {
      expect(errorsOf(`jwt:\n${jwt(issuer('http://issuer'))}`)).toEqual(['jwt[0].issuer.url: Invalid value: "http://issuer": URL scheme must be https']);
      expect(errorsOf(`jwt:\n${jwt(issuer('https://u:p@issuer.example/x?a=b#frag'))}`)).toEqual([
        'jwt[0].issuer.url: Invalid value: "https://u:p@issuer.example/x?a=b#frag": URL must not contain a username or password',
        'jwt[0].issuer.url: Invalid value: "https://u:p@issuer.example/x?a=b#frag": URL must not contain a query',
        'jwt[0].issuer.url: Invalid value: "https://u:p@issuer.example/x?a=b#frag": URL must not contain a fragment',
      ]);
      expect(errorsOf('jwt:\n- issuer:\n    audiences: [a]\n  claimMappings:\n    username:\n      claim: sub\n      prefix: ""\n')).toEqual([
        'jwt[0].issuer.url: Required value',
      ]);
      expect(errorsOf(`jwt:\n${jwt(issuer('issuer.example'))}`)).toEqual(['jwt[0].issuer.url: Invalid value: "issuer.example": URL scheme must be https']);
    });

    it('keeps issuer URLs and discovery URLs unique, and discoveryURL different from url', () => {
      expect(errorsOf(`jwt:\n${jwt(issuer())}\n${jwt(issuer())}`)).toEqual(['jwt[1].issuer.url: Duplicate value: "https://issuer.example"']);
      const d = (u: string) => `    discoveryURL: ${u}\n`;
      expect(
        errorsOf(`jwt:\n${jwt(issuer('https://a.example', d('https://d.example/x')))}\n${jwt(issuer('https://b.example', d('https://d.example/x')))}`),
      ).toEqual(['jwt[1].issuer.discoveryURL: Duplicate value: "https://d.example/x"']);
      expect(errorsOf(`jwt:\n${jwt(issuer('https://a.example', d('https://a.example/')))}`)).toEqual([
        'jwt[0].issuer.discoveryURL: Invalid value: "https://a.example/": discoveryURL must be different from URL',
      ]);
      expect(errorsOf(`jwt:\n${jwt(issuer('https://a.example', d('http://d.example')))}`)).toEqual([
        'jwt[0].issuer.discoveryURL: Invalid value: "http://d.example": URL scheme must be https',
      ]);
    });

    it('rejects disallowed issuers', () => {
      expect(errorsOf(`jwt:\n${jwt(issuer('https://sa.example'))}`, { disallowedIssuers: ['https://sa.example'] })).toEqual([
        'jwt[0].issuer.url: Invalid value: "https://sa.example": URL must not overlap with disallowed issuers: [https://sa.example]',
      ]);
    });

    it('checks audiences and the audience match policy', () => {
      const base = '- issuer:\n    url: https://i.example\n';
      const m = '  claimMappings:\n    username:\n      claim: sub\n      prefix: ""\n';
      expect(errorsOf(`jwt:\n${base}${m}`)).toEqual(['jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required']);
      expect(errorsOf(`jwt:\n${base}    audiences: ["a", "", "a"]\n    audienceMatchPolicy: MatchAny\n${m}`)).toEqual([
        'jwt[0].issuer.audiences[1]: Required value',
        'jwt[0].issuer.audiences[2]: Duplicate value: "a"',
      ]);
      expect(errorsOf(`jwt:\n${base}    audiences: [a, b]\n${m}`)).toEqual([
        'jwt[0].issuer.audienceMatchPolicy: Invalid value: "": audienceMatchPolicy must be MatchAny for multiple audiences',
      ]);
      expect(errorsOf(`jwt:\n${base}    audiences: [a]\n    audienceMatchPolicy: MatchAll\n${m}`)).toEqual([
        'jwt[0].issuer.audienceMatchPolicy: Invalid value: "MatchAll": audienceMatchPolicy must be empty or MatchAny for single audience',
      ]);
    });

    it('requires certificateAuthority to hold valid PEM certificates', () => {
      expect(errorsOf(`jwt:\n${jwt(issuer('https://i.example', '    certificateAuthority: not a pem\n'))}`)).toEqual([
        'jwt[0].issuer.certificateAuthority: Invalid value: "<omitted>": data does not contain any valid RSA or ECDSA certificates',
      ]);
      const broken = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
      const errors = errorsOf(`jwt:\n${jwt(issuer('https://i.example', `    certificateAuthority: ${JSON.stringify(broken)}\n`))}`);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/^jwt\[0\]\.issuer\.certificateAuthority: Invalid value: "<omitted>": x509: malformed certificate/);
    });
  });

  describe('claimValidationRules', () => {
    const withRules = (rules: string) => `jwt:\n${jwt(issuer(), 'claimMappings:\n    username:\n      claim: sub\n      prefix: ""\n', `  claimValidationRules:\n${rules}`)}`;
    it('keeps claim/requiredValue and expression/message apart', () => {
      expect(errorsOf(withRules('  - claim: hd\n    expression: "true"\n'))).toEqual([
        'jwt[0].claimValidationRules[0]: Invalid value: "hd": claim and expression can\'t both be set',
      ]);
      expect(errorsOf(withRules('  - message: x\n'))).toEqual(['jwt[0].claimValidationRules[0]: Required value: claim or expression is required']);
      expect(errorsOf(withRules('  - claim: hd\n    message: x\n'))).toEqual([
        'jwt[0].claimValidationRules[0].message: Invalid value: "x": may not be specified when claim is set',
      ]);
      expect(errorsOf(withRules('  - expression: "claims.hd == \'x\'"\n    requiredValue: x\n'))).toEqual([
        'jwt[0].claimValidationRules[0].requiredValue: Invalid value: "x": may not be specified when expression is set',
      ]);
    });

    it('rejects duplicate claims and expressions', () => {
      expect(errorsOf(withRules('  - claim: hd\n  - claim: hd\n'))).toEqual(['jwt[0].claimValidationRules[1].claim: Duplicate value: "hd"']);
      expect(errorsOf(withRules('  - expression: "true"\n  - expression: "true"\n'))).toEqual([
        'jwt[0].claimValidationRules[1].expression: Duplicate value: "true"',
      ]);
    });

    it('requires expressions to type-check to bool', () => {
      expect(errorsOf(withRules("  - expression: 'claims.?email_verified.orValue(true)'\n"))).toEqual([
        'jwt[0].claimValidationRules[0].expression: Invalid value: "claims.?email_verified.orValue(true)": must evaluate to bool',
      ]);
      expect(errorsOf(withRules("  - expression: 'claims.?email_verified.orValue(true) == true'\n"))).toEqual([]);
      const syntax = errorsOf(withRules("  - expression: 'claims.hd =='\n"));
      expect(syntax).toHaveLength(1);
      expect(syntax[0]).toMatch(/^jwt\[0\]\.claimValidationRules\[0\]\.expression: Invalid value: "claims.hd ==": compilation failed: ERROR: <input>:1:/);
    });
    it('accepts what cel-go type-checks: has() of an indexed element, dyn operands, indexed claim names', () => {
      for (const expression of [
        'has(claims.teams[0].name)',
        'claims.teams.exists(t, has(t.name) && t.name == "dev")',
        'claims.flag && claims.?org.?verified.orValue(true) == true',
        'claims["example.com/role"] == "admin"',
        'claims.level == 2.0',
        // Kubernetes' TestToken "... - success - service account payload": the value type of an
        // index into an optional(dyn) is open, and orValue(true) makes it bool.
        'claims[?"kubernetes.io"]["node"]["ip"].orValue(true)',
        'has(claims.kubernetes__dot__io.pod.uid)',
      ]) {
        expect(errorsOf(withRules(`  - expression: '${expression}'\n`))).toEqual([]);
      }
      // Kubernetes compares the checked type itself: a dyn result is not a bool.
      expect(errorsOf(withRules("  - expression: 'claims.?a.?b.orValue(true)'\n"))).toEqual([
        'jwt[0].claimValidationRules[0].expression: Invalid value: "claims.?a.?b.orValue(true)": must evaluate to bool',
      ]);
      expect(errorsOf(withRules("  - expression: 'has(\"x\".y)'\n"))[0]).toContain("type 'string' does not support field selection");
    });
  });

  describe('claimMappings', () => {
    const withMappings = (m: string) => `jwt:\n${jwt(issuer(), `claimMappings:\n${m}`)}`;
    it('requires username as claim xor expression, with prefix exactly when claim is used', () => {
      expect(errorsOf(withMappings('    groups:\n      claim: g\n      prefix: ""\n'))).toEqual([
        'jwt[0].claimMappings.username: Required value: claim or expression is required',
      ]);
      expect(errorsOf(withMappings('    username:\n      claim: sub\n      expression: claims.sub\n'))).toEqual([
        'jwt[0].claimMappings.username: Invalid value: "": claim and expression can\'t both be set',
      ]);
      expect(errorsOf(withMappings('    username:\n      claim: sub\n'))).toEqual([
        'jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing',
      ]);
      expect(errorsOf(withMappings('    username:\n      expression: claims.sub\n      prefix: "x:"\n'))).toEqual([
        'jwt[0].claimMappings.username.prefix: Invalid value: "x:": may not be specified when expression is set',
      ]);
      expect(errorsOf(withMappings('    username:\n      expression: claims.sub\n'))).toEqual([]);
    });

    it('applies the same rules to groups (optional) and uid', () => {
      const u = '    username:\n      claim: sub\n      prefix: ""\n';
      expect(errorsOf(withMappings(`${u}    groups:\n      claim: groups\n`))).toEqual([
        'jwt[0].claimMappings.groups.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing',
      ]);
      expect(errorsOf(withMappings(`${u}    groups:\n      claim: g\n      expression: claims.g\n`))).toEqual([
        'jwt[0].claimMappings.groups: Invalid value: "": claim and expression can\'t both be set',
      ]);
      expect(errorsOf(withMappings(`${u}    uid:\n      claim: sub\n      expression: claims.sub\n`))).toEqual([
        'jwt[0].claimMappings.uid: Invalid value: "": claim and expression can\'t both be set',
      ]);
      expect(errorsOf(withMappings(`${u}    uid:\n      expression: 'claims.sub +'\n`))[0]).toMatch(
        /^jwt\[0\]\.claimMappings\.uid\.expression: Invalid value: "claims.sub \+": compilation failed/,
      );
    });

    it('checks extra keys: domain-prefixed, lowercase, unique, outside plat.io', () => {
      const u = '    username:\n      claim: sub\n      prefix: ""\n';
      const extra = (key: string, expr = 'claims.sub') => `    - key: ${JSON.stringify(key)}\n      valueExpression: ${JSON.stringify(expr)}\n`;
      expect(errorsOf(withMappings(`${u}    extra:\n${extra('team')}`))).toEqual([
        'jwt[0].claimMappings.extra[0].key: Invalid value: "team": must be a domain-prefixed path (such as "acme.io/foo")',
      ]);
      expect(errorsOf(withMappings(`${u}    extra:\n${extra('Example.com/Team')}`))).toEqual([
        expect.stringMatching(/^jwt\[0\]\.claimMappings\.extra\[0\]\.key: Invalid value: "Example\.com": a lowercase RFC 1123 subdomain/),
        'jwt[0].claimMappings.extra[0].key: Invalid value: "Example.com/Team": must be lowercase',
      ]);
      expect(errorsOf(withMappings(`${u}    extra:\n${extra('plat.io/team')}${extra('auth.plat.io/x')}${extra('notplat.io/x')}`))).toEqual([
        'jwt[0].claimMappings.extra[0].key: Invalid value: "plat.io/team": plat.io and its subdomains are reserved for plat use',
        'jwt[0].claimMappings.extra[1].key: Invalid value: "auth.plat.io/x": plat.io and its subdomains are reserved for plat use',
      ]);
      expect(errorsOf(withMappings(`${u}    extra:\n${extra('example.com/a')}${extra('example.com/a')}`))).toEqual([
        'jwt[0].claimMappings.extra[1].key: Duplicate value: "example.com/a"',
      ]);
      expect(errorsOf(withMappings(`${u}    extra:\n    - key: example.com/a\n`))).toEqual([
        'jwt[0].claimMappings.extra[0].valueExpression: Required value',
      ]);
      expect(errorsOf(withMappings(`${u}    extra:\n${extra('', 'claims.sub')}`))).toEqual(['jwt[0].claimMappings.extra[0].key: Required value']);
    });

    it('requires claims.email_verified somewhere when the username expression uses claims.email', () => {
      const user = "    username:\n      expression: 'claims.email'\n";
      expect(errorsOf(withMappings(user))).toEqual([
        'jwt[0].claimMappings.username.expression: Invalid value: "claims.email": claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression',
      ]);
      expect(errorsOf(withMappings("    username:\n      expression: 'claims.email_verified ? claims.email : claims.sub'\n"))).toEqual([]);
      expect(errorsOf(withMappings(`${user}    extra:\n    - key: example.com/v\n      valueExpression: 'string(claims.?email_verified.orValue(false))'\n`))).toEqual([]);
      const rule = `jwt:\n${jwt(issuer(), `claimMappings:\n${user}`, "  claimValidationRules:\n  - expression: 'claims.email_verified == true'\n")}`;
      expect(errorsOf(rule)).toEqual([]);
      // A claim-based username mapping is not subject to the rule (the authenticator adds its own check).
      expect(errorsOf(withMappings('    username:\n      claim: email\n      prefix: ""\n'))).toEqual([]);
    });
  });

  describe('userValidationRules', () => {
    const withRules = (rules: string) => `jwt:\n${jwt(issuer(), 'claimMappings:\n    username:\n      claim: sub\n      prefix: ""\n', `  userValidationRules:\n${rules}`)}`;
    it('requires unique expressions that type-check to bool over user', () => {
      expect(errorsOf(withRules('  - message: m\n'))).toEqual(['jwt[0].userValidationRules[0].expression: Required value']);
      expect(errorsOf(withRules("  - expression: 'user.username'\n"))).toEqual([
        'jwt[0].userValidationRules[0].expression: Invalid value: "user.username": must evaluate to bool',
      ]);
      expect(errorsOf(withRules("  - expression: 'user.uid != \"\"'\n  - expression: 'user.uid != \"\"'\n"))).toEqual([
        'jwt[0].userValidationRules[1].expression: Duplicate value: "user.uid != \\"\\""',
      ]);
      expect(errorsOf(withRules("  - expression: 'claims.sub == \"x\"'\n"))[0]).toMatch(/Unknown variable: claims/);
    });
  });

  describe('anonymous', () => {
    it('allows conditions only when enabled, with unique non-empty paths', () => {
      expect(errorsOf('anonymous:\n  enabled: false\n  conditions:\n  - path: /livez\n')).toEqual([
        'anonymous.conditions: Invalid value: [{"path":"/livez"}]: enabled should be set to true when conditions are defined',
      ]);
      expect(errorsOf('anonymous:\n  enabled: true\n  conditions:\n  - path: /livez\n  - path: /livez\n  - path: ""\n')).toEqual([
        'anonymous.conditions[1].path: Duplicate value: "/livez"',
        'anonymous.conditions[2].path: Required value',
      ]);
      expect(load('anonymous:\n  enabled: false\n').anonymous).toEqual({ enabled: false, conditions: [] });
    });

    it('rejects the section when --anonymous-auth is set', () => {
      expect(errorsOf('anonymous:\n  enabled: true\n', { anonymousAuthFlagSet: true })).toEqual([
        'anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file',
      ]);
      expect(errorsOf('jwt: []\n', { anonymousAuthFlagSet: true })).toEqual([]);
    });
  });

  it('limits the number of authenticators to 64', () => {
    const many = Array.from({ length: 65 }, (_, i) => jwt(issuer(`https://i${i}.example`))).join('\n');
    expect(errorsOf(`jwt:\n${many}`)).toEqual(['jwt: Too many: 65: must have at most 64 items']);
  });

  it('decodes strictly: unknown fields, duplicate keys, wrong types, empty files', () => {
    expect(errorsOf('jwt:\n- issuer:\n    isuer: x\n')).toEqual(['unknown field "jwt[0].issuer.isuer"']);
    expect(errorsOf('jwt:\n- isuer: {}\n')).toEqual(['unknown field "jwt[0].isuer"']);
    expect(errorsOf('jwt: []\njwt: []\n')).toEqual(['duplicate field "jwt"']);
    expect(errorsOf('jwt: {}\n')).toEqual(['jwt: Invalid value: {}: must be a list, not object']);
    expect(errorsOf('jwt:\n- issuer:\n    audiences: plat\n')).toEqual(['jwt[0].issuer.audiences: Invalid value: "plat": must be a list, not string']);
    const empty = loadAuthenticationConfiguration('');
    expect(empty.ok).toBe(false);
    if (!empty.ok) expect(empty.errors.map(String)).toEqual(['the file is empty: an AuthenticationConfiguration needs apiVersion and kind']);
    const wrongKind = loadAuthenticationConfiguration('apiVersion: apiserver.plat.io/v1beta1\nkind: AuthorizationConfiguration\n');
    if (!wrongKind.ok) expect(wrongKind.errors.map(String)).toEqual(['kind: Invalid value: "AuthorizationConfiguration": must be "AuthenticationConfiguration"']);
    const wrongVersion = loadAuthenticationConfiguration('apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\n');
    if (!wrongVersion.ok) {
      expect(wrongVersion.errors.map(String)).toEqual([
        'apiVersion: Unsupported value: "apiserver.config.k8s.io/v1beta1": supported values: "apiserver.plat.io/v1beta1"',
      ]);
    }
    const json = loadAuthenticationConfiguration('{"apiVersion":"apiserver.plat.io/v1beta1","kind":"AuthenticationConfiguration","jwt":[],"jwt":[]}');
    if (!json.ok) expect(json.errors.map(String)).toEqual(['duplicate field "jwt"']);
    expect(json.ok).toBe(false);
    const syntax = loadAuthenticationConfiguration('jwt: [\n');
    expect(syntax.ok).toBe(false);
    if (!syntax.ok) expect(String(syntax.errors[0])).toMatch(/^yaml: line \d+: /);
  });
});
