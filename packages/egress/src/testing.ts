/**
 * For tests of code that dials through egress selections (the `@plat/egress/testing` subpath): a
 * real HTTP CONNECT proxy (TCP, TLS or a unix socket) and a Konnectivity gRPC tunnel server.
 */
export { startConnectProxy, type TestProxy, type TestProxyOptions } from './testing/connect-proxy.js';
export { startKonnectivityServer } from './testing/konnectivity-server.js';
