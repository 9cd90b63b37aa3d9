/**
 * The success cases of Kubernetes' TestToken whose claims are deeply nested JSON with dotted keys
 * (staging/src/k8s.io/apiserver/plugin/pkg/authenticator/token/oidc/oidc_test.go, "claim mappings
 * with expressions and deeply nested claim - ..."), retold with our issuer, keys and extra keys:
 * real tokens signed by a real provider over HTTPS, evaluated by the authenticator end to end.
 */
import { startOidcProvider, type TestOidcProvider } from '../../test/oidc-provider.js';
import { JwtAuthenticator } from './jwt-authenticator.js';
import type { JwtAuthenticatorSpec } from './jwt-authenticator-spec.js';

let idp: TestOidcProvider;
const open: JwtAuthenticator[] = [];

beforeAll(async () => {
  idp = await startOidcProvider();
});
afterAll(async () => {
  await Promise.all(open.map((a) => a.close()));
  await idp.close();
});

async function authenticator(config: Omit<JwtAuthenticatorSpec, 'issuer'>): Promise<JwtAuthenticator> {
  const spec: JwtAuthenticatorSpec = { issuer: { url: idp.url, certificateAuthority: idp.ca, audiences: ['my-client'] }, ...config };
  const a = new JwtAuthenticator([spec], { keySet: { minUnknownKidRefreshMs: 0, initialRetryMs: 50 } });
  open.push(a);
  a.start();
  const deadline = Date.now() + 15_000;
  while (!a.readiness().every((r) => r.ready)) {
    if (Date.now() > deadline) throw new Error('authenticator not ready in time');
    await new Promise((r) => setTimeout(r, 20));
  }
  return a;
}

const expiresIn10Minutes = () => Math.floor(Date.now() / 1000) + 600;

const bits = { bit1: true, bit2: false, bit3: 1 };
const turtle = {
  foo: {
    '1': 'a',
    '2': 'b',
    other1: bits,
    bar: { '3': 'c', '4': 'd', other1: bits, baz: { '5': 'e', '6': 'f', panda: ['snorlax', '007', 'santa', 'claus'], other1: bits } },
  },
};

/** The mappings the first two cases share; only the groups expression differs. */
function nestedClaimMappings(groups: string): Omit<JwtAuthenticatorSpec, 'issuer'> {
  return {
    claimValidationRules: [{ expression: 'claims.turtle.foo.other1.bit1 && !claims.turtle.foo.bar.other1.bit2' }],
    claimMappings: {
      username: { expression: 'claims.turtle.foo.bar.baz.panda[0]' },
      uid: { expression: 'claims.turtle.foo.bar.baz.panda[1]' },
      groups: { expression: groups },
      extra: [
        { key: 'bio.snorlax.org/1', valueExpression: 'string(claims.turtle.foo.bar.other1.bit2)' },
        { key: 'bio.snorlax.org/2', valueExpression: 'string(claims.turtle.foo.bar.baz.other1.bit3)' },
        { key: 'bio.snorlax.org/3', valueExpression: "[string(claims.turtle.foo.bar.baz.other1.bit1)] + ['a', 'b', 'c']" },
      ],
    },
    userValidationRules: [
      { expression: 'user.username != "bad"' },
      { expression: 'user.uid == "007"' },
      { expression: '"claus" in user.groups' },
      // The extra key bio.snorlax.org/3, named with Kubernetes' escapes.
      { expression: 'user.extra.bio__dot__snorlax__dot__org__slash__3.size() == 4' },
    ],
  };
}

const nestedExtra = { 'bio.snorlax.org/1': ['false'], 'bio.snorlax.org/2': ['1'], 'bio.snorlax.org/3': ['true', 'a', 'b', 'c'] };

describe('Kubernetes TestToken: deeply nested claims', () => {
  it('"... deeply nested claim - success": maps nested claims and checks an escaped user.extra key', async () => {
    const a = await authenticator(nestedClaimMappings('claims.turtle.foo.bar.baz.panda'));
    const token = await idp.sign({ iss: idp.url, aud: 'my-client', exp: expiresIn10Minutes(), turtle });
    expect((await a.authenticateToken(token))?.user).toEqual({
      username: 'snorlax',
      uid: '007',
      groups: ['snorlax', '007', 'santa', 'claus'],
      extra: nestedExtra,
    });
  });

  it('"... deeply nested claim - success via optional": an optional chain over a missing key falls back', async () => {
    const a = await authenticator(nestedClaimMappings("claims.turtle.foo.bar.baz.?a.b.c.d.orValue([ 'claus' ])"));
    const token = await idp.sign({ iss: idp.url, aud: 'my-client', exp: expiresIn10Minutes(), turtle });
    expect((await a.authenticateToken(token))?.user).toEqual({ username: 'snorlax', uid: '007', groups: ['claus'], extra: nestedExtra });
  });

  it('"... deeply nested claim - failure without optional": the same chain without ? is an error', async () => {
    const a = await authenticator(nestedClaimMappings('claims.turtle.foo.bar.baz.a.b.c.d'));
    const token = await idp.sign({ iss: idp.url, aud: 'my-client', exp: expiresIn10Minutes(), turtle });
    await expect(a.authenticateToken(token)).rejects.toThrow(/^oidc: error evaluating group claim expression: .*no such key: a/i);
  });

  it('"... success - service account payload": __dot__ at the top of the claims, and orValue(true) as a rule', async () => {
    const a = await authenticator({
      claimValidationRules: [
        { expression: 'claims.sub == ("system:serviceaccount:" + claims.kubernetes__dot__io.namespace + ":" + claims.kubernetes__dot__io.serviceaccount.name)' },
        { expression: 'has(claims.kubernetes__dot__io.pod.uid)' },
        { expression: 'claims["kubernetes.io"]["node"]["uid"] != ""' },
        // cel-go types this bool: the optional's value type is open until orValue binds it.
        { expression: 'claims[?"kubernetes.io"]["node"]["ip"].orValue(true)' },
      ],
      claimMappings: {
        username: { expression: '"system:serviceaccount:" + claims.kubernetes__dot__io.namespace + ":" + claims.kubernetes__dot__io.serviceaccount.name' },
        uid: { expression: 'claims.kubernetes__dot__io.serviceaccount.uid' },
        groups: { expression: '[ "system:serviceaccounts", "system:serviceaccounts:" + claims.kubernetes__dot__io.namespace ]' },
        extra: [
          { key: 'authentication.example.com/pod-name', valueExpression: 'claims.kubernetes__dot__io.pod.name' },
          { key: 'authentication.example.com/node-name', valueExpression: 'claims.kubernetes__dot__io.node.name' },
          { key: 'authentication.example.com/credential-id', valueExpression: '"JTI=" + claims.jti' },
          { key: 'test.example.com/warnafter', valueExpression: 'string(int(claims.kubernetes__dot__io.warnafter))' },
          { key: 'test.example.com/namespace', valueExpression: 'claims.kubernetes__dot__io.namespace' },
        ],
      },
      userValidationRules: [
        { expression: 'user.username.startsWith("system:serviceaccount:" + user.extra["test.example.com/namespace"][0] + ":")' },
        { expression: 'user.uid != ""' },
        { expression: '"system:serviceaccounts" in user.groups && user.groups.size() == 2' },
        { expression: 'user.extra.authentication__dot__example__dot__com__slash__node__dash__name[0] == "127.0.0.1"' },
        {
          expression:
            'user.extra.authentication__dot__example__dot__com__slash__credential__dash__id[0] == user.extra.authentication__dot__plat__dot__io__slash__credential__dash__id[0]',
        },
        { expression: 'user.extra["test.example.com/warnafter"][0] == "1700081020"' },
        { expression: 'has(user.extra.authentication__dot__example__dot__com__slash__pod__dash__name)' },
        { expression: 'user.extra[?"test.example.com/missing"].orValue([]) == []' },
      ],
    });
    const token = await idp.sign({
      aud: ['my-client'],
      exp: expiresIn10Minutes(),
      iat: 1700077413,
      iss: idp.url,
      jti: 'ea28ed49-2e11-4280-9ec5-bc3d1d84661a',
      'kubernetes.io': {
        namespace: 'kube-system',
        node: { name: '127.0.0.1', uid: '58456cb0-dd00-45ed-b797-5578fdceaced' },
        pod: { name: 'coredns-69cbfb9798-jv9gn', uid: '778a530c-b3f4-47c0-9cd5-ab018fb64f33' },
        serviceaccount: { name: 'coredns', uid: 'a087d5a0-e1dd-43ec-93ac-f13d89cd13af' },
        warnafter: 1700081020,
      },
      nbf: Math.floor(Date.now() / 1000),
      sub: 'system:serviceaccount:kube-system:coredns',
    });
    expect((await a.authenticateToken(token))?.user).toEqual({
      username: 'system:serviceaccount:kube-system:coredns',
      uid: 'a087d5a0-e1dd-43ec-93ac-f13d89cd13af',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system'],
      extra: {
        'authentication.example.com/pod-name': ['coredns-69cbfb9798-jv9gn'],
        'authentication.example.com/node-name': ['127.0.0.1'],
        'authentication.example.com/credential-id': ['JTI=ea28ed49-2e11-4280-9ec5-bc3d1d84661a'],
        'authentication.plat.io/credential-id': ['JTI=ea28ed49-2e11-4280-9ec5-bc3d1d84661a'],
        'test.example.com/warnafter': ['1700081020'],
        'test.example.com/namespace': ['kube-system'],
      },
    });
  });

  it('"... success - claims payload with deep use of __dot__": escaped names inside nested objects and lists', async () => {
    const a = await authenticator({
      claimValidationRules: [
        { expression: 'has(claims.turtle.foo.bar.baz.username__dot__io)' },
        { expression: 'has(claims.turtle.foo.bar.baz.link[0].uid__dot__io)' },
        { expression: 'has(claims.data[0].groups__dot__io)' },
        { expression: 'claims.turtle.foo.bar.bee.username__dot__io.company__dot__io == "fun-corp"' },
      ],
      claimMappings: {
        username: { expression: 'claims.turtle.foo.bar.baz.username__dot__io' },
        uid: { expression: 'claims.turtle.foo.bar.baz.link[0].uid__dot__io' },
        groups: { expression: 'claims.data[0].groups__dot__io' },
      },
    });
    const deep = structuredClone(turtle) as typeof turtle & Record<string, never>;
    Object.assign(deep.foo.bar, { bee: { 'username.io': { 'company.io': 'fun-corp' } } });
    Object.assign(deep.foo.bar.baz, { 'username.io': 'snorlax.io', link: [{ 'uid.io': '143' }] });
    const token = await idp.sign({ iss: idp.url, aud: 'my-client', exp: expiresIn10Minutes(), data: [{ 'groups.io': 'gen1' }], turtle: deep });
    expect((await a.authenticateToken(token))?.user).toEqual({ username: 'snorlax.io', uid: '143', groups: ['gen1'] });
  });
});
