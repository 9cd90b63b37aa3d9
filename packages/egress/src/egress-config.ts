/**
 * The EgressSelectorConfiguration shape this package is built from. It mirrors the decoded,
 * validated `apiserver.plat.io/v1beta1` kind that @plat/config produces; the app hands it over,
 * so this package does not depend on the config package (same layer).
 */
export type ProxyProtocol = 'Direct' | 'HTTPConnect' | 'GRPC';

export interface TlsConfig {
  caBundle?: string;
  clientKey?: string;
  clientCert?: string;
  tlsServerName?: string;
}

export interface EgressConnection {
  proxyProtocol: ProxyProtocol;
  transport?: {
    tcp?: { url: string; tlsConfig?: TlsConfig };
    uds?: { udsName: string };
  };
}

export interface EgressSelection {
  name: string;
  connection: EgressConnection;
}

export interface EgressSelectorSpec {
  egressSelections: EgressSelection[];
}

/** The selections the server dials through; `master` is the deprecated alias of `controlplane`. */
export type EgressSelectionName = 'controlplane' | 'etcd' | 'cluster';

export function canonicalSelectionName(name: string): EgressSelectionName | undefined {
  if (name === 'master') return 'controlplane';
  if (name === 'controlplane' || name === 'etcd' || name === 'cluster') return name;
  return undefined;
}
