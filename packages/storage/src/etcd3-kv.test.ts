import { progressInOrder } from './etcd3-kv.js';

describe('progressInOrder', () => {
  // The versions kube-apiserver trusts with RequestWatchProgress
  // (staging/src/k8s.io/apiserver/pkg/storage/feature/feature_support_checker.go): etcd-io/etcd#15220
  // and #17507 are fixed in 3.4.31 and 3.5.13.
  it.each([
    ['3.4.23', false],
    ['3.4.30', false],
    ['3.4.31', true],
    ['3.5.0', false],
    ['3.5.12', false],
    ['3.5.13', true],
    ['3.6.0', true],
    ['3.3.27', false],
    ['4.0.0', true],
    ['not a version', false],
  ])('etcd %s: %s', (version, expected) => {
    expect(progressInOrder(version)).toBe(expected);
  });
});
