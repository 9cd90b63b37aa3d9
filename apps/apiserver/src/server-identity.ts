import { Reloadable, type Authenticator, type Authorizer } from '@plat/auth';
import type { HealthCheck } from '@plat/server';
import { jwtNotReady, type AuthenticationInstance } from './authentication-setup.js';
import type { AuthorizationInstance } from './authorization-setup.js';

/**
 * The server's authenticator and authorizer as stable objects over reloadable instances.
 * A request keeps the instances it started with: authentication uses the current
 * authentication instance, and pins the current authorization instance to the request (by its
 * abort signal, which the server passes to every authorizer call: the authorization filter,
 * impersonation, admission and the review APIs). Pinning is switched on by
 * `pinAuthorizationPerRequest()` when the authorization configuration can be reloaded (otherwise
 * it would only cost: the server creates a request's signal when something reads it). A replaced
 * instance is closed after `retireAfterMs` (the request timeout), when requests that could still
 * use it have finished.
 */
export class ServerIdentity {
  private authn: Reloadable<AuthenticationInstance> | undefined;
  private authz: Reloadable<AuthorizationInstance> | undefined;
  private readonly pinned = new WeakMap<AbortSignal, AuthorizationInstance>();
  private readonly retiring = new Map<NodeJS.Timeout, () => Promise<void>>();
  private closed = false;
  private pinning = false;

  constructor(private readonly retireAfterMs: number) {}

  readonly authenticator: Authenticator = {
    authenticate: (req) => {
      const authn = this.current(this.authn);
      if (this.pinning && req.signal) this.pinned.set(req.signal, this.current(this.authz));
      return authn.authenticator.authenticate(req);
    },
  };

  readonly authorizer: Authorizer = {
    authorize: (attrs, opts) => {
      const authz = (this.pinning && opts?.signal && this.pinned.get(opts.signal)) || this.current(this.authz);
      return authz.authorizer.authorize(attrs, opts);
    },
  };

  /** /readyz: fails while a JWT issuer's keys have not loaded (the server serves meanwhile). */
  readonly readyzCheck: HealthCheck = {
    name: 'authentication-jwt',
    check: async () => {
      const problem = this.authn ? jwtNotReady(this.authn.current.jwt) : 'authentication is not configured yet';
      if (problem) throw new Error(problem);
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
    if (!holder) throw new Error('the server identity is used before it was configured');
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
