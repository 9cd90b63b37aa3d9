import { ok as assert } from 'node:assert';
import { Reloadable, type Authenticator, type Authorizer } from '@plat/auth';
import type { AuthenticationInstance } from './authentication.js';
import type { AuthorizationInstance } from './authorization.js';

/**
 * The server's authenticator and authorizer as stable objects over reloadable instances.
 * A request keeps the instances it started with: authentication uses the current
 * authentication instance, and pins the current authorization instance's authorizer to the
 * request's scope (RequestScope.pinnedAuthorizer; every authorizer call of the server passes the
 * request as its scope: the authorization filter, impersonation, admission and the review APIs).
 * The scope's signal is never read for this: a server makes a request's signal on first read, and
 * each one is promoted to the old generation. Pinning is switched on
 * by `pinAuthorizationPerRequest()` when the authorization configuration can be reloaded
 * (otherwise it would only cost). A replaced instance is closed after `retireAfterMs` (the request
 * timeout), when requests that could still use it have finished.
 */
export class ServerIdentity {
  private authn: Reloadable<AuthenticationInstance> | undefined;
  private authz: Reloadable<AuthorizationInstance> | undefined;
  private readonly retiring = new Map<NodeJS.Timeout, () => Promise<void>>();
  private closed = false;
  private pinning = false;

  constructor(private readonly retireAfterMs: number) {}

  readonly authenticator: Authenticator = {
    authenticate: (req, scope) => {
      const authn = this.current(this.authn);
      if (this.pinning && scope) scope.pinnedAuthorizer = this.current(this.authz).authorizer;
      return authn.authenticator.authenticate(req, scope);
    },
    authenticateKnown: (req, scope) => {
      const authn = this.current(this.authn);
      if (!authn.authenticator.authenticateKnown) return undefined;
      if (this.pinning && scope) scope.pinnedAuthorizer = this.current(this.authz).authorizer;
      return authn.authenticator.authenticateKnown(req, scope);
    },
  };

  readonly authorizer: Authorizer = {
    authorize: (attrs, scope) => {
      const authorizer = (this.pinning && scope?.pinnedAuthorizer) || this.current(this.authz).authorizer;
      return authorizer.authorize(attrs, scope);
    },
    authorizeKnown: (attrs, scope) => {
      const authorizer = (this.pinning && scope?.pinnedAuthorizer) || this.current(this.authz).authorizer;
      return authorizer.authorizeKnown?.(attrs, scope);
    },
    rulesFor: (user, namespace) => {
      const { authorizer } = this.current(this.authz);
      return authorizer.rulesFor ? authorizer.rulesFor(user, namespace) : { resourceRules: [], nonResourceRules: [], incomplete: true };
    },
  };

  get authentication(): AuthenticationInstance {
    return this.current(this.authn);
  }

  get authorization(): AuthorizationInstance {
    return this.current(this.authz);
  }

  /** From now on, requests keep the authorization instance current when they were authenticated. */
  pinAuthorizationPerRequest(): void {
    this.pinning = true;
  }

  /** Installs a built authentication instance (the first, or a reloaded one; its JWT key loading already started). */
  setAuthentication(next: AuthenticationInstance): void {
    if (!this.authn) this.authn = new Reloadable(next);
    else this.retire(this.authn.swap(next));
  }

  setAuthorization(next: AuthorizationInstance): void {
    if (!this.authz) this.authz = new Reloadable(next);
    else this.retire(this.authz.swap(next));
  }

  /** Closes the current and the retiring instances (server stop). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const closers = [...this.retiring.values()];
    for (const timer of this.retiring.keys()) clearTimeout(timer);
    this.retiring.clear();
    if (this.authn) closers.push(() => this.authn!.current.close());
    if (this.authz) closers.push(() => this.authz!.current.close());
    await Promise.allSettled(closers.map((c) => c()));
  }

  private current<T>(holder: Reloadable<T> | undefined): T {
    assert(holder, 'the server identity is used before it was configured'); // an invariant: createIdentity configures it before serving
    return holder.current;
  }

  private retire(previous: { close(): Promise<void> }): void {
    const close = () => previous.close().catch(() => undefined);
    const timer = setTimeout(() => {
      this.retiring.delete(timer);
      void close();
    }, this.retireAfterMs);
    timer.unref();
    this.retiring.set(timer, close);
  }
}
