import { createIssuer } from '../test/issuer-fixture.js';
import {
  AuthenticationError,
  createBearerTokenAuthenticator,
  createStaticTokenAuthenticator,
  createUnionAuthenticator,
  createX509Authenticator,
  parseTokenFile,
  type Authenticator,
} from './index.js';
import { call, startAuthServer, type AuthServer } from '../test/tls-fixture.js';

describe('bearer token + union authenticator over real TLS', () => {
  let server: AuthServer;
  let issuer: Awaited<ReturnType<typeof createIssuer>>;

  beforeAll(async () => {
    issuer = await createIssuer();
    const { tokens } = parseTokenFile('s3cret,script,uid-7,"deployers,system:masters"\nplain,carol,uid-8\n', 'tokens.csv');
    const union = createUnionAuthenticator([
      createX509Authenticator({ clientCA: issuer.ca.certPem }),
      createBearerTokenAuthenticator(createStaticTokenAuthenticator(tokens)),
    ]);
    server = await startAuthServer(union, issuer.ca.certPem);
  });
  afterAll(() => server.close());

  it('authenticates a static token and adds system:authenticated', async () => {
    const res = await call(server, { headers: { authorization: 'Bearer s3cret' } });
    expect(res.body?.user).toEqual({ username: 'script', uid: 'uid-7', groups: ['deployers', 'system:masters', 'system:authenticated'] });
  });

  it('accepts the scheme in any case', async () => {
    const res = await call(server, { headers: { authorization: 'bEaReR plain' } });
    expect(res.body?.user?.username).toBe('carol');
  });

  it('rejects an unknown token as "invalid bearer token"', async () => {
    const res = await call(server, { headers: { authorization: 'Bearer nope' } });
    expect(res.status).toBe(401);
    expect(res.body?.error).toBe('invalid bearer token');
  });

  it('ignores other schemes and empty tokens', async () => {
    expect((await call(server, { headers: { authorization: 'Basic YTpi' } })).body).toBeNull();
    expect((await call(server, { headers: { authorization: 'Bearer ' } })).body).toBeNull();
  });

  it('prefers the client certificate and adds system:authenticated', async () => {
    const alice = await issuer.client('alice', ['devs']);
    const res = await call(server, { cert: alice.certPem, key: alice.keyPem, headers: { authorization: 'Bearer s3cret' } });
    expect(res.body?.user).toEqual({ username: 'alice', groups: ['devs', 'system:authenticated'] });
  });

  it('falls through a bad client certificate to a valid token', async () => {
    const stranger = await issuer.foreignClient('stranger');
    const res = await call(server, { cert: stranger.certPem, key: stranger.keyPem, headers: { authorization: 'Bearer plain' } });
    expect(res.status).toBe(200);
    expect(res.body?.user?.username).toBe('carol');
  });

  it('reports every error when nothing authenticates', async () => {
    const stranger = await issuer.foreignClient('stranger');
    const res = await call(server, { cert: stranger.certPem, key: stranger.keyPem, headers: { authorization: 'Bearer nope' } });
    expect(res.status).toBe(401);
    expect(res.body?.error).toMatch(/^\[verifying certificate SN=\d+.* failed: x509: certificate signed by unknown authority, invalid bearer token\]$/);
  });
});

describe('createUnionAuthenticator', () => {
  const fixed = (username: string, groups: string[]): Authenticator => ({
    authenticate: async () => ({ user: { username, groups } }),
  });

  it('does not add system:authenticated to anonymous or to users already marked', async () => {
    const req = { method: 'GET', path: '/', headers: {} };
    expect((await createUnionAuthenticator([fixed('system:anonymous', ['system:unauthenticated'])]).authenticate(req))?.user.groups).toEqual([
      'system:unauthenticated',
    ]);
    expect((await createUnionAuthenticator([fixed('x', ['system:authenticated', 'a'])]).authenticate(req))?.user.groups).toEqual([
      'system:authenticated',
      'a',
    ]);
  });

  it('answers null when no authenticator recognises the request and none failed', async () => {
    const none: Authenticator = { authenticate: async () => null };
    expect(await createUnionAuthenticator([none, none]).authenticate({ method: 'GET', path: '/', headers: {} })).toBeNull();
  });

  it('keeps a single error as it is', async () => {
    const failing: Authenticator = {
      authenticate: async () => {
        throw new AuthenticationError('token expired');
      },
    };
    await expect(createUnionAuthenticator([failing]).authenticate({ method: 'GET', path: '/', headers: {} })).rejects.toThrow(
      /^token expired$/,
    );
  });
});
