import type { WebhookConnection } from '@plat/auth';
import { loadKubeConfig, resolveRestConfig } from '@plat/client';
import type { AuthorizerConfiguration } from '@plat/config';
import { AuthorizationConfigError } from './identity-errors.js';

/**
 * A webhook's connection from its PlatConfig file (kubeconfig format, current context): server,
 * certificate-authority(-data), tls-server-name, client certificate and key, token. Kubernetes'
 * webhook authorizer loads the same file (webhookutil.LoadKubeconfig). Refused here:
 * `InClusterConfig` (plat's apiserver never runs inside a cluster, so it has no service account
 * to call with) and a server that is not `https://` (a SubjectAccessReview carries the user's
 * identity and its answer grants access: neither may travel in the clear).
 */
export function webhookConnection(authorizer: AuthorizerConfiguration): WebhookConnection {
  const info = authorizer.webhook!.connectionInfo;
  if (info.type !== 'PlatConfigFile') {
    throw new AuthorizationConfigError(`authorizer ${JSON.stringify(authorizer.name)}: connectionInfo.type InClusterConfig needs the server to run inside a cluster, which plat's apiserver never does; use PlatConfigFile`);
  }
  let rest;
  try {
    rest = resolveRestConfig(loadKubeConfig({ explicitPath: info.platConfigFile }), {}, 'apiserver');
  } catch (err) {
    throw new AuthorizationConfigError(`authorizer ${JSON.stringify(authorizer.name)}: platConfigFile ${info.platConfigFile}: ${(err as Error).message}`);
  }
  if (!/^https:\/\//.test(rest.server)) {
    throw new AuthorizationConfigError(`authorizer ${JSON.stringify(authorizer.name)}: platConfigFile ${info.platConfigFile}: the webhook server must be an https:// URL, got ${JSON.stringify(rest.server)}`);
  }
  return {
    server: rest.server,
    ca: rest.ca,
    cert: rest.cert,
    key: rest.key,
    token: rest.token,
    tlsServerName: rest.tlsServerName,
    insecureSkipTLSVerify: rest.insecureSkipTlsVerify,
  };
}
