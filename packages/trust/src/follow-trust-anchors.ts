import type { SecureContext } from 'node:tls';
import type { RestClient } from '@plat/client';
import { TrustAgent, type TrustAgentOptions } from './trust-agent.js';
import type { TrustAnchorSelection } from './trust-anchor-selection.js';
import type { TrustAnchors } from './trust-anchors.js';
import { trustedSecureContext } from './trusted-secure-context.js';
import { watchTrustAnchors, type WatchTrustAnchorsOptions } from './watch-trust-anchors.js';

export interface FollowTrustAnchorsOptions extends Omit<WatchTrustAnchorsOptions, 'onChange'> {
  /** Also told of each change, after the agent and secure context follow it. */
  onChange?: (anchors: TrustAnchors) => void | Promise<void>;
  /** Options of the TrustAgent besides its anchors (client certificate, servername, pool settings). */
  agent?: Omit<TrustAgentOptions, 'anchors'>;
}

/** A running watch with what a TLS client needs to trust the selection's current anchors. */
export interface FollowedTrustAnchors {
  /** An undici dispatcher verifying servers with the current anchors (see TrustAgent). */
  readonly agent: TrustAgent;
  /** The current anchors. */
  current(): TrustAnchors;
  /** A secure context with the current anchors, for node:https and tls.connect (made once per anchor set). */
  secureContext(): SecureContext;
  /** The watch's terminal outcome: resolves when the signal aborts, rejects on a fatal error. */
  readonly done: Promise<void>;
}

/**
 * Watches a selection (see `watchTrustAnchors`) and keeps a TrustAgent and a secure context on its
 * anchors, so a Node service trusts a rotating bundle without a restart. Resolves once the first
 * anchors are known; rejects when the watch ends before that (aborted, or a fatal error). Close
 * the agent after aborting the signal.
 */
export function followTrustAnchors(client: RestClient, selection: TrustAnchorSelection, options: FollowTrustAnchorsOptions = {}): Promise<FollowedTrustAnchors> {
  const { agent: agentOptions, onChange, ...watchOptions } = options;
  return new Promise((resolve, reject) => {
    let followed: FollowedTrustAnchors | undefined;
    let current: TrustAnchors;
    let context: { digest: string; value: SecureContext } | undefined;
    const done = watchTrustAnchors(client, selection, {
      ...watchOptions,
      onChange: async (anchors) => {
        current = anchors;
        if (!followed) {
          followed = {
            agent: new TrustAgent({ ...agentOptions, anchors }),
            current: () => current,
            secureContext: () => {
              if (context?.digest !== current.digest) context = { digest: current.digest, value: trustedSecureContext(current, agentOptions?.tlsOptions) };
              return context.value;
            },
            done,
          };
          resolve(followed);
        } else {
          followed.agent.update(anchors);
        }
        await onChange?.(anchors);
      },
    });
    done.then(
      () => {
        if (!followed) reject(options.signal?.reason ?? new Error('the watch ended before any anchors were known'));
      },
      (err) => {
        if (!followed) reject(err);
      },
    );
  });
}
