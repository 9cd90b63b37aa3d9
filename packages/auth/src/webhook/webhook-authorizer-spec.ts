/** One Webhook authorizer of an AuthorizationConfiguration, validated and defaulted by @plat/config. */
export interface WebhookAuthorizerSpec {
  name: string;
  timeoutMs: number;
  authorizedTTLMs: number;
  unauthorizedTTLMs: number;
  subjectAccessReviewVersion: 'v1' | 'v1beta1';
  failurePolicy: 'NoOpinion' | 'Deny';
  matchConditions: { expression: string }[];
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
