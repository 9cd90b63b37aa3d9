import { ok as assert } from 'node:assert';
import { Reloadable, type Authenticator, type Authorizer } from '@plat/auth';
import { requestOfCall } from '@plat/server';
import type { AuthenticationInstance } from './authentication.js';
import type { AuthorizationInstance } from './authorization.js';

/**
 * The key a call's request is pinned under: the server's request itself when the call's options
 * lead to it (@plat/server's RequestCallOptions, or options carrying the request's signal), else
 * the bare signal (callers outside the server's filters). RequestCallOptions are never asked for
 * their signal: reading a request's lazy signal creates it, and each one is promoted to the old
 * generation.
 */
function pinKey(carrier: { readonly signal?: AbortSignal } | undefined): object | undefined {
  return requestOfCall(carrier) ?? carrier?.signal;
}

/**
 * The server's authenticator and authorizer as stable objects over reloadable instances.
 * A request keeps the instances it started with: authentication uses the current
 * authentication instance, and pins the current authorization instance to the request (see
 * {@link pinKey}; every authorizer call of the server carries the request's mark or its signal:
 * the authorization filter, impersonation, admission and the review APIs). Pinning is switched on
 * by `pinAuthorizationPerRequest()` when the authorization configuration can be reloaded
 * (otherwise it would only cost). A replaced instance is closed after `retireAfterMs` (the request
 * timeout), when requests that could still use it have finished.
 */
export class ServerIdentity {
  private authn: Reloadable<AuthenticationInstance> | undefined;
  private authz: Reloadable<AuthorizationInstance> | undefined;
  private readonly pinned = new WeakMap<object, AuthorizationInstance>();
  private readonly retiring = new Map<NodeJS.Timeout, () => Promise<void>>();
  private closed = false;
  private pinning = false;

  constructor(private readonly retireAfterMs: number) {}

  readonly authenticator: Authenticator = {
    authenticate: (req) => {
      const authn = this.current(this.authn);
      if (this.pinning) {
        const key = pinKey(req);
        if (key) this.pinned.set(key, this.current(this.authz));
      }
      return authn.authenticator.authenticate(req);
    },
  };

  readonly authorizer: Authorizer = {
    authorize: (attrs, opts) => {
      const key = this.pinning ? pinKey(opts) : undefined;
      const authz = (key && this.pinned.get(key)) || this.current(this.authz);
      return authz.authorizer.authorize(attrs, opts);
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
