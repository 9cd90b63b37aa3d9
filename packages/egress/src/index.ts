export {
  canonicalSelectionName,
  type EgressConnection,
  type EgressSelection,
  type EgressSelectionName,
  type EgressSelectorSpec,
  type ProxyProtocol,
  type TlsConfig,
} from './egress-config.js';
export { EgressConfigError, EgressDialError } from './egress-error.js';
export { DirectDialer, type DialOptions, type Dialer } from './dialer.js';
export { HttpConnectDialer, type ProxyAddress, type ProxyTlsMaterial } from './http-connect-dialer.js';
export { GrpcTunnelDialer, konnectivityService } from './grpc-tunnel-dialer.js';
export { konnectivityDescriptor, konnectivityLoaderOptions, type Packet, type PacketType } from './konnectivity-proto.js';
export { EgressMetrics } from './egress-metrics.js';
export { EgressSelector, type EgressSelectorOptions } from './egress-selector.js';
export { readEgressTlsMaterial } from './tls-material.js';
export { createEgressAgent, createEgressConnector } from './undici-connector.js';
