import path from 'node:path';
import { parseFlags } from '../test/auth-fixtures.js';
import { completeServeOptions } from './options.js';

async function complete(...args: string[]) {
  return completeServeOptions(await parseFlags(args));
}

describe('authentication and authorization flags', () => {
  it('defaults: RBAC, anonymous not set (Kubernetes default on), RS256 for --oidc-*', async () => {
    const { options, errors } = await complete();
    expect(errors).toEqual([]);
    expect(options!.auth).toEqual({
      authenticationConfigFile: undefined,
      authorizationConfigFile: undefined,
      anonymousAuth: undefined,
      oidc: expect.objectContaining({ signingAlgs: ['RS256'], requiredClaims: {} }),
      authorization: expect.objectContaining({ modes: ['RBAC'] }),
      setFlags: [],
    });
  });

  it('reads every flag, making file paths absolute', async () => {
    const { options, errors } = await complete(
      '--oidc-issuer-url=https://idp.example.com',
      '--oidc-client-id=plat',
      '--oidc-ca-file=ca.pem',
      '--oidc-username-claim=email',
      '--oidc-username-prefix=-',
      '--oidc-groups-claim=groups',
      '--oidc-groups-prefix=idp:',
      '--oidc-required-claim=hd=example.com,tier=gold',
      '--oidc-required-claim',
      'team=a=b',
      '--oidc-signing-algs=ES256,RS256',
      '--anonymous-auth=false',
      '--authorization-mode=AlwaysAllow,Webhook',
      '--authorization-webhook-config-file=hook.conf',
      '--authorization-webhook-version=v1',
    );
    expect(errors).toEqual([]);
    expect(options!.auth.oidc).toEqual({
      issuerURL: 'https://idp.example.com',
      clientID: 'plat',
      caFile: path.resolve('ca.pem'),
      usernameClaim: 'email',
      usernamePrefix: '-',
      groupsClaim: 'groups',
      groupsPrefix: 'idp:',
      requiredClaims: { hd: 'example.com', tier: 'gold', team: 'a=b' },
      signingAlgs: ['ES256', 'RS256'],
    });
    expect(options!.auth.anonymousAuth).toBe(false);
    expect(options!.auth.authorization).toMatchObject({ modes: ['AlwaysAllow', 'Webhook'], webhookConfigFile: path.resolve('hook.conf'), webhookVersion: 'v1' });
  });

  it('rejects the combinations kube-apiserver rejects, with its messages', async () => {
    expect((await complete('--authentication-config=a.yaml', '--oidc-issuer-url=https://x', '--oidc-client-id=c')).errors).toContain(
      'authentication-config file and oidc-* flags are mutually exclusive',
    );
    expect((await complete('--authorization-config=z.yaml', '--authorization-mode=AlwaysAllow')).errors).toContain(
      '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined',
    );
    expect((await complete('--authorization-config=z.yaml', '--authorization-webhook-version=v1')).errors).toHaveLength(1);
    expect((await complete('--oidc-issuer-url=https://x')).errors).toEqual(['oidc-issuer-url and oidc-client-id must be specified together']);
    expect((await complete('--authorization-mode=Webhook')).errors).toEqual(["authorization-mode Webhook's authorization config file not passed"]);
    expect((await complete('--authorization-webhook-config-file=x')).errors).toEqual(['cannot specify --authorization-webhook-config-file without mode Webhook']);
    expect((await complete('--oidc-signing-algs=HS256')).errors[0]).toMatch(/^--oidc-signing-algs: unsupported signing algorithm "HS256"/);
    expect((await complete('--oidc-required-claim=nokey')).errors).toEqual([
      'invalid argument "nokey" for "--oidc-required-claim" flag: nokey must be formatted as key=value',
    ]);
  });
});
