import { JwtAuthenticator, type Attributes, type RequestScope } from '@plat/auth';
import type { AuthenticationInstance } from './authentication.js';
import type { AuthorizationInstance } from './authorization.js';
import { ServerIdentity } from './server-identity.js';

function authn(name: string, closed: string[]): AuthenticationInstance {
  return {
    authenticator: { authenticate: async () => ({ user: { username: name, groups: [] } }) },
    jwt: new JwtAuthenticator([]),
    close: async () => void closed.push(name),
  };
}

function authz(name: string, closed: string[]): AuthorizationInstance {
  return {
    authorizer: { authorize: async () => ({ decision: 'Allow', reason: name }) },
    close: async () => void closed.push(name),
  };
}

const attrs = (): Attributes => ({
  user: { username: 'u', groups: [] },
  verb: 'get',
  resourceRequest: false,
  apiGroup: '',
  apiVersion: '',
  resource: '',
  subresource: '',
  namespace: '',
  name: '',
  path: '/version',
});

const request = { method: 'GET', path: '/version', headers: {} };

/** A pinning identity with instances authn-1 and authz-1; `closed` collects closed instance names. */
function pinningIdentity(retireAfterMs: number, closed: string[]): ServerIdentity {
  const identity = new ServerIdentity(retireAfterMs);
  identity.pinAuthorizationPerRequest();
  identity.setAuthentication(authn('authn-1', closed));
  identity.setAuthorization(authz('authz-1', closed));
  return identity;
}

describe('ServerIdentity', () => {
  it('keeps the instances a request started with across a reload, and closes replaced ones later', async () => {
    {
      const closed: string[] = [];
      // Retired after 1 s: long enough that the "not yet closed" check below cannot miss it on a loaded machine.
      const identity = pinningIdentity(1000, closed);

      const inFlight: RequestScope = {};
      expect((await identity.authenticator.authenticate(request, inFlight))!.user.username).toBe('authn-1');

      identity.setAuthentication(authn('authn-2', closed));
      identity.setAuthorization(authz('authz-2', closed));

      // The request that started before the reload is still decided by the old chain...
      expect((await identity.authorizer.authorize(attrs(), inFlight)).reason).toBe('authz-1');
      // ...while a new request gets the new instances.
      const fresh: RequestScope = {};
      expect((await identity.authenticator.authenticate(request, fresh))!.user.username).toBe('authn-2');
      expect((await identity.authorizer.authorize(attrs(), fresh)).reason).toBe('authz-2');
      expect((await identity.authorizer.authorize(attrs())).reason).toBe('authz-2');

      expect(closed).toEqual([]);
      for (const end = Date.now() + 15_000; closed.length < 2 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
      expect(closed.sort()).toEqual(['authn-1', 'authz-1']);

      await identity.close();
      expect(closed.sort()).toEqual(['authn-1', 'authn-2', 'authz-1', 'authz-2']);
    }
  });

  it('neither pins nor reads the signal while authorization cannot be reloaded', async () => {
    const closed: string[] = [];
    const identity = new ServerIdentity(60_000);
    identity.setAuthentication(authn('authn-1', closed));
    identity.setAuthorization(authz('authz-1', closed));
    let reads = 0;
    const signal = new AbortController().signal;
    const lazy: RequestScope = {
      get signal() {
        reads++;
        return signal;
      },
    };
    expect((await identity.authenticator.authenticate(request, lazy))!.user.username).toBe('authn-1');
    expect(lazy.pinnedAuthorizer).toBeUndefined();
    identity.setAuthorization(authz('authz-2', closed));
    expect((await identity.authorizer.authorize(attrs(), lazy)).reason).toBe('authz-2');
    expect(reads).toBe(0);
    await identity.close();
  });

  it("pins to the request's scope without reading its signal", async () => {
    const closed: string[] = [];
    const identity = pinningIdentity(60_000, closed);
    // What the server's filters pass: the request context, whose signal is made on first read.
    let reads = 0;
    const scope = (): RequestScope => ({
      get signal(): AbortSignal {
        reads++;
        throw new Error('the signal must not be read');
      },
    });
    const first = scope();
    await identity.authenticator.authenticate(request, first);
    identity.setAuthorization(authz('authz-2', closed));
    expect((await identity.authorizer.authorize(attrs(), first)).reason).toBe('authz-1');
    const second = scope();
    await identity.authenticator.authenticate(request, second);
    expect((await identity.authorizer.authorize(attrs(), second)).reason).toBe('authz-2');
    expect(reads).toBe(0);
    await identity.close();
  });

  it('closes retiring instances at once when the server stops', async () => {
    const closed: string[] = [];
    const identity = new ServerIdentity(60_000);
    identity.setAuthorization(authz('a', closed));
    identity.setAuthorization(authz('b', closed));
    identity.setAuthentication(authn('n', closed));
    await identity.close();
    expect(closed.sort()).toEqual(['a', 'b', 'n']);
  });
});
