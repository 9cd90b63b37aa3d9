import { createHash } from 'node:crypto';
import type { SecureContextOptions } from 'node:tls';
import { Agent, Dispatcher } from 'undici';
import { trustedSecureContext } from './trusted-secure-context.js';
import type { TrustAnchors } from './trust-anchors.js';

export interface TrustAgentOptions extends Omit<Agent.Options, 'connect' | 'tls'> {
  /** The anchors to trust at first (a canonical PEM or resolved anchors). */
  anchors: Pick<TrustAnchors, 'pem' | 'digest'> | string;
  /** TLS options besides the CA: client certificate and key, ciphers... (they go into the secure context). */
  tlsOptions?: Omit<SecureContextOptions, 'ca'>;
  /** The name to verify the server certificate against instead of the host dialled. */
  servername?: string;
}

/**
 * An undici dispatcher that verifies servers against a set of trust anchors that can change:
 * after `update`, new connections verify with the new anchors, requests in flight finish on
 * their connections, and idle pooled connections (verified with the old anchors) are closed.
 *
 * Internally each anchor set has its own undici Agent; `update` starts a new one for new
 * requests and closes the previous one gracefully (undici's `close`: idle sockets at once, busy
 * ones when their requests end). Use it as `dispatcher` with undici's `request`/`fetch`, or with
 * `setGlobalDispatcher`.
 */
export class TrustAgent extends Dispatcher {
  private agent: Agent;
  private digest: string;
  private readonly retiring = new Set<Promise<void>>();
  private readonly agentOptions: Omit<Agent.Options, 'connect' | 'tls'>;
  private readonly tls: Omit<SecureContextOptions, 'ca'>;
  private readonly servername?: string;

  constructor(options: TrustAgentOptions) {
    super();
    const { anchors, tlsOptions, servername, ...agentOptions } = options;
    this.agentOptions = agentOptions;
    this.tls = tlsOptions ?? {};
    this.servername = servername;
    this.digest = digestOf(anchors);
    this.agent = this.newAgent(anchors);
  }

  /** The SHA-256 (hex) of the PEM new connections verify with. */
  get anchorsDigest(): string {
    return this.digest;
  }

  /** Trusts `anchors` from now on; a set equal to the current one (same digest) changes nothing. */
  update(anchors: Pick<TrustAnchors, 'pem' | 'digest'> | string): void {
    const digest = digestOf(anchors);
    if (digest === this.digest) return;
    const old = this.agent;
    this.agent = this.newAgent(anchors);
    this.digest = digest;
    const closing = old.close().catch(() => undefined);
    this.retiring.add(closing);
    void closing.finally(() => this.retiring.delete(closing));
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    return this.agent.dispatch(options, handler);
  }

  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    const done = Promise.all([this.agent.close(), ...this.retiring]).then(() => undefined);
    if (!callback) return done;
    void done.then(callback, callback);
  }

  override destroy(): Promise<void>;
  override destroy(err: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(err: Error | null, callback: () => void): void;
  override destroy(errOrCallback?: Error | null | (() => void), callback?: () => void): Promise<void> | void {
    const err = typeof errOrCallback === 'function' ? null : (errOrCallback ?? null);
    const cb = typeof errOrCallback === 'function' ? errOrCallback : callback;
    const done = Promise.all([this.agent.destroy(err), ...this.retiring]).then(() => undefined);
    if (!cb) return done;
    void done.then(cb, cb);
  }

  private newAgent(anchors: Pick<TrustAnchors, 'pem'> | string): Agent {
    const secureContext = trustedSecureContext(anchors, this.tls);
    return new Agent({ ...this.agentOptions, connect: { secureContext, ...(this.servername ? { servername: this.servername } : {}) } });
  }
}

function digestOf(anchors: Pick<TrustAnchors, 'digest'> | string): string {
  return typeof anchors === 'string' ? createHash('sha256').update(anchors).digest('hex') : anchors.digest;
}
