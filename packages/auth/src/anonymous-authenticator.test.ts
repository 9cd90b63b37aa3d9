import { AuthenticationError, type AuthenticationRequest, type Authenticator } from './interface.js';
import { createAnonymousAuthenticator, withAnonymous } from './anonymous-authenticator.js';

const req = (path: string, headers: Record<string, string> = {}): AuthenticationRequest => ({ method: 'GET', path, headers });

// A real credential authenticator of the simplest kind: one bearer token.
const oneToken: Authenticator = {
  async authenticate(r) {
    const auth = r.headers.authorization;
    if (!auth) return null;
    if (auth === 'Bearer good') return { user: { username: 'alice', groups: ['system:authenticated'] } };
    throw new AuthenticationError('invalid bearer token');
  },
};

describe('anonymous authentication', () => {
  it('makes unauthenticated requests system:anonymous in system:unauthenticated', async () => {
    const a = createAnonymousAuthenticator({ enabled: true });
    expect(await a.authenticate(req('/apis'))).toEqual({ user: { username: 'system:anonymous', groups: ['system:unauthenticated'] } });
    expect(await createAnonymousAuthenticator({ enabled: false }).authenticate(req('/apis'))).toBeNull();
  });

  it('with conditions allows anonymous access only on the listed paths', async () => {
    const a = createAnonymousAuthenticator({ enabled: true, conditions: [{ path: '/livez' }, { path: '/readyz' }] });
    expect(await a.authenticate(req('/livez'))).not.toBeNull();
    expect(await a.authenticate(req('/livez/ping'))).toBeNull();
    expect(await a.authenticate(req('/apis'))).toBeNull();
  });

  it('never turns an invalid credential into anonymous access', async () => {
    const a = withAnonymous(oneToken, { enabled: true });
    expect((await a.authenticate(req('/apis', { authorization: 'Bearer good' })))?.user.username).toBe('alice');
    expect((await a.authenticate(req('/apis')))?.user.username).toBe('system:anonymous');
    await expect(a.authenticate(req('/apis', { authorization: 'Bearer bad' }))).rejects.toThrow('invalid bearer token');
    expect(await withAnonymous(oneToken, { enabled: false }).authenticate(req('/apis'))).toBeNull();
  });

  it('answers without waiting only when the credential authenticators know their answer', async () => {
    // An authenticator that knows there is no credential of its kind (a request without a client certificate).
    const none: Authenticator = { authenticate: async () => null, authenticateKnown: () => null };
    expect(withAnonymous(none, { enabled: true }).authenticateKnown!(req('/apis'))).toEqual(await withAnonymous(none, { enabled: true }).authenticate(req('/apis')));
    // A token authenticator has to be awaited: so has anonymous access after it.
    expect(withAnonymous(oneToken, { enabled: true }).authenticateKnown!(req('/apis'))).toBeUndefined();
  });
});
