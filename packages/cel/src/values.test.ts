import { celTypeOf, requestActivation, toCelClaims, userActivation } from './values.js';

describe('activations', () => {
  it('builds request like Kubernetes: user fields always, attributes only when present', () => {
    expect(requestActivation({ user: 'alice' })).toEqual({ request: { user: 'alice', groups: [], uid: '', extra: {} } });
    const r = requestActivation({
      resourceAttributes: {
        verb: 'list',
        resource: 'clustertrustbundles',
        fieldSelector: { rawSelector: 'spec.signerName=a', requirements: [{ key: 'spec.signerName', operator: 'In', values: ['a'] }] },
        labelSelector: { requirements: [{ key: 'team', operator: 'Exists' }] },
      },
    });
    expect(r.request.resourceAttributes).toEqual({
      namespace: '',
      verb: 'list',
      group: '',
      version: '',
      resource: 'clustertrustbundles',
      subresource: '',
      name: '',
      fieldSelector: { rawSelector: 'spec.signerName=a' },
      labelSelector: { requirements: [{ key: 'team', operator: 'Exists', values: [] }] },
    });
    expect(requestActivation({ nonResourceAttributes: { path: '/healthz' } }).request.nonResourceAttributes).toEqual({ path: '/healthz', verb: '' });
  });

  it('builds user with every field present', () => {
    const { user } = userActivation({ username: 'a', extra: { 'example.com/k': ['v'] } });
    expect(user).toEqual({ username: 'a', uid: '', groups: [], extra: expect.any(Map) });
    expect([...(user.extra as Map<string, unknown>)]).toEqual([['example.com/k', ['v']]]);
    expect((user.extra as Map<string, unknown>).get('example__dot__com__slash__k')).toEqual(['v']);
  });

  it('converts whole JSON numbers of claims to CEL ints, once per claims object', () => {
    const claims = { exp: 10, ratio: 0.5, nested: { n: [1, 2.5] }, s: 'x' };
    const converted = toCelClaims(claims);
    expect(converted).toEqual(new Map<string, unknown>([['exp', 10n], ['ratio', 0.5], ['nested', new Map([['n', [1n, 2.5]]])], ['s', 'x']]));
    expect(toCelClaims(claims)).toBe(converted);
    expect(toCelClaims(converted)).toBe(converted);
    expect(claims.exp).toBe(10);
  });

  it('names CEL types of values', () => {
    expect([celTypeOf('a'), celTypeOf(1n), celTypeOf(1.5), celTypeOf(true), celTypeOf(null), celTypeOf([]), celTypeOf({})]).toEqual([
      'string',
      'int',
      'double',
      'bool',
      'null_type',
      'list',
      'map',
    ]);
  });
});
