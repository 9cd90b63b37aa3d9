import type { FieldError } from './field-error.js';
import { validateNamespace, validateNamespaceFinalizeUpdate, validateNamespaceUpdate } from './namespace.js';

const text = (errs: readonly FieldError[]) => errs.map((e) => e.toString());

describe('Namespace validation (Kubernetes\' ValidateNamespace)', () => {
  it('accepts a DNS label name with the kubernetes finalizer', () => {
    expect(validateNamespace({ metadata: { name: 'team-a' }, spec: { finalizers: ['kubernetes'] } })).toEqual([]);
  });

  it('refuses a name that is not a DNS label, a namespace of its own and bad finalizer names', () => {
    expect(text(validateNamespace({ metadata: { name: 'Team.A', namespace: 'x' }, spec: { finalizers: ['nope', 'a/b/c'] } }))).toEqual([
      `metadata.name: Invalid value: "Team.A": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      'metadata.namespace: Forbidden: not allowed on this type',
      'spec.finalizers: Invalid value: "nope": name is neither a standard finalizer name nor is it fully qualified',
      `spec.finalizers: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ]);
  });

  it('checks an update with the metadata update rules', () => {
    const old = { metadata: { name: 'a', uid: 'u1', resourceVersion: '1' } };
    expect(text(validateNamespaceUpdate({ metadata: { name: 'a', uid: 'u2', resourceVersion: '1' } }, old))).toEqual([
      'metadata.uid: Invalid value: "u2": field is immutable',
    ]);
  });

  it('checks a finalize update (ValidateNamespaceFinalizeUpdate): metadata rules and each finalizer at its index', () => {
    const old = { metadata: { name: 'a', uid: 'u1', resourceVersion: '1' }, spec: { finalizers: ['kubernetes'] } };
    expect(validateNamespaceFinalizeUpdate({ metadata: { name: 'a', uid: 'u1', resourceVersion: '1' }, spec: { finalizers: ['example.com/x', 'orphan'] } }, old)).toEqual([]);
    expect(text(validateNamespaceFinalizeUpdate({ metadata: { name: 'b', uid: 'u1', resourceVersion: '1' }, spec: { finalizers: ['kubernetes', 'nope'] } }, old))).toEqual([
      'metadata.name: Invalid value: "b": field is immutable',
      'spec.finalizers[1]: Invalid value: "nope": name is neither a standard finalizer name nor is it fully qualified',
    ]);
  });
});
