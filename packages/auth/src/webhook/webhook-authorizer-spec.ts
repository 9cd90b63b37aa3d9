import type { WebhookConfiguration, WebhookMatchCondition } from '@plat/config';

/**
 * One Webhook authorizer of an AuthorizationConfiguration, validated and defaulted by @plat/config
 * (its `WebhookConfiguration`, with the authorizer's name). The match conditions carry the programs
 * @plat/config compiled, which the authorizer uses as they are; a condition written by hand
 * without its program is compiled by the authorizer.
 */
export interface WebhookAuthorizerSpec
  extends Pick<WebhookConfiguration, 'timeoutMs' | 'authorizedTTLMs' | 'unauthorizedTTLMs' | 'subjectAccessReviewVersion' | 'failurePolicy'> {
  name: string;
  matchConditions: (Pick<WebhookMatchCondition, 'expression'> & Partial<Pick<WebhookMatchCondition, 'program'>>)[];
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
