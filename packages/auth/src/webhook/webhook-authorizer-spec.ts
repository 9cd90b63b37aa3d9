import type { WebhookConfiguration, WebhookMatchCondition } from '@plat/config';

/**
 * One Webhook authorizer of an AuthorizationConfiguration, validated and defaulted by @plat/config
 * (its `WebhookConfiguration`, with the authorizer's name; the match conditions' compiled programs
 * may be left out: the authorizer compiles the expressions).
 */
export interface WebhookAuthorizerSpec
  extends Pick<WebhookConfiguration, 'timeoutMs' | 'authorizedTTLMs' | 'unauthorizedTTLMs' | 'subjectAccessReviewVersion' | 'failurePolicy'> {
  name: string;
  matchConditions: Pick<WebhookMatchCondition, 'expression'>[];
}

/**
 * Where and how to call the webhook, resolved by the app from the connectionInfo's PlatConfig
 * file (kubeconfig format: cluster server, certificate-authority(-data), tls-server-name, user
 * client-certificate(-data) / client-key(-data) / token).
 */
export interface WebhookConnection {
  server: string;
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  token?: string;
  tlsServerName?: string;
  insecureSkipTLSVerify?: boolean;
}
