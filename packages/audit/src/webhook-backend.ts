/**
 * The webhook backend (k8s.io/apiserver `plugin/pkg/audit/webhook/webhook.go`): events are POSTed
 * as an `audit.k8s.io/v1` EventList to the server of a kubeconfig-format file. A failed call is
 * retried with exponential backoff (`--audit-webhook-initial-backoff`, factor 1.5, jitter 0.2,
 * 5 steps: webhook.DefaultRetryBackoffWithInitialDelay) on connection errors, 429 and 5xx; what
 * still fails is counted in `apiserver_audit_error_total{plugin="webhook"}`.
 */
import { Agent, request } from 'undici';
import type { AuditBackend } from './backend.js';
import { encodeEventLine, type AuditEvent } from './event.js';
import type { AuditMetrics } from './metrics.js';

/** Where the events go: the fields of the kubeconfig's current context, loaded by the caller. */
export interface AuditWebhookConnection {
  server: string;
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  token?: string;
  tlsServerName?: string;
  insecureSkipTLSVerify?: boolean;
}

export interface WebhookBackendOptions {
  connection: AuditWebhookConnection;
  /** First wait before a retry; Kubernetes' default is 10 s. */
  initialBackoffMs?: number;
  /** One call's limit; Kubernetes' webhook client uses 30 s. */
  requestTimeoutMs?: number;
  metrics: AuditMetrics;
  onError?: (err: Error) => void;
}

export const defaultInitialBackoffMs = 10_000;
const backoffFactor = 1.5;
const backoffJitter = 0.2;
const backoffSteps = 5;

class WebhookError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'WebhookError';
  }
}

export function createWebhookBackend(options: WebhookBackendOptions): AuditBackend & { sendBatch(events: readonly AuditEvent[]): Promise<boolean> } {
  const { connection } = options;
  const url = new URL(connection.server);
  const agent = new Agent({
    connect: {
      ...(connection.ca ? { ca: connection.ca } : {}),
      ...(connection.cert ? { cert: connection.cert } : {}),
      ...(connection.key ? { key: connection.key } : {}),
      ...(connection.tlsServerName ? { servername: connection.tlsServerName } : {}),
      rejectUnauthorized: !connection.insecureSkipTLSVerify,
    },
  });
  const timeoutMs = options.requestTimeoutMs ?? 30_000;
  const initialBackoffMs = options.initialBackoffMs ?? defaultInitialBackoffMs;
  const shutdown = new AbortController();

  const post = async (body: string) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (connection.token) headers.authorization = `Bearer ${connection.token}`;
    let res;
    try {
      res = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers,
        body,
        signal: AbortSignal.any([shutdown.signal, AbortSignal.timeout(timeoutMs)]),
      });
    } catch (err) {
      throw new WebhookError((err as Error).message, !shutdown.signal.aborted);
    }
    await res.body.dump();
    if (res.statusCode >= 200 && res.statusCode < 300) return;
    throw new WebhookError(`the server responded with the status code ${res.statusCode}`, res.statusCode === 429 || res.statusCode >= 500);
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      shutdown.signal.addEventListener('abort', () => {
        clearTimeout(t);
        resolve();
      }, { once: true });
    });

  const sendBatch = async (events: readonly AuditEvent[]): Promise<boolean> => {
    if (events.length === 0) return true;
    // Each item encoded as the log backend does (int64 values exact), joined into one EventList.
    const items = events.map((ev) => encodeEventLine(ev).trimEnd()).join(',');
    const body = `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[${items}]}`;
    let delay = initialBackoffMs;
    for (let step = 1; ; step++) {
      try {
        await post(body);
        return true;
      } catch (err) {
        const e = err as WebhookError;
        if (!e.retryable || step >= backoffSteps || shutdown.signal.aborted) {
          options.metrics.error('webhook', events.length);
          options.onError?.(new Error(`Error in audit plugin 'webhook' affecting ${events.length} audit events: ${e.message}`));
          return false;
        }
        await sleep(delay * (1 + Math.random() * backoffJitter));
        delay *= backoffFactor;
      }
    }
  };

  return {
    name: 'webhook',
    processEvents: (events) => sendBatch(events),
    sendBatch,
    async shutdown() {
      shutdown.abort();
      await agent.close().catch(() => undefined);
    },
  };
}
