/**
 * For tests of code built on @plat/storage (the `@plat/storage/testing` subpath): the storage
 * contract suite, which a new backend (or a wrapper such as a cache) runs to show it keeps the
 * Storage contract, and a real etcd on loopback ports.
 */
export { runStorageContract, type ContractTarget } from './testing/contract-suite.js';
export { TestEtcd, etcdBinary, hasEtcd, type TestEtcdTls } from './testing/etcd-server.js';
export { TcpProxy } from './testing/tcp-proxy.js';
export { TestEtcdCluster } from './testing/etcd-cluster.js';
