import fc from 'fast-check';
import { isStatusError } from '@plat/api-model';
import { fuzzParameters } from '@plat/api-model/testing';
import { RbacPolicyStore, RbacRuleResolver } from '@plat/auth';
import { decodeProtobufObject as decodeWith } from '@plat/server';
import { namespaceResource, rbacResources, reviewResources } from '../../src/index.js';

// The protobuf messages of the kinds plat-apiserver serves, as the server collects them.
const resources = [...rbacResources({ resolver: new RbacRuleResolver(new RbacPolicyStore()) }), namespaceResource(), ...reviewResources()];
const kinds = new Map(resources.flatMap((r) => (r.protobuf ? [[r.kind, r.protobuf] as const] : [])));
const decodeProtobufObject = (body: Buffer, accepted: readonly string[]) => decodeWith(body, accepted, kinds);

// A protobuf writer for the test: what gogo-protobuf's generated Marshal writes for kubectl's
// typed objects (every non-pointer field, zero values included).
const varint = (n: bigint): Buffer => {
  const out: number[] = [];
  let v = n < 0n ? n + (1n << 64n) : n;
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Buffer.from(out);
};
const bytes = (n: number, value: Buffer | string) => {
  const b = typeof value === 'string' ? Buffer.from(value) : value;
  return Buffer.concat([varint(BigInt(n * 8 + 2)), varint(BigInt(b.length)), b]);
};
const num = (n: number, value: bigint) => Buffer.concat([varint(BigInt(n * 8)), varint(value)]);
const cat = (...parts: Buffer[]) => Buffer.concat(parts);
const envelope = (apiVersion: string, kind: string, raw: Buffer) =>
  cat(Buffer.from('k8s\0', 'binary'), bytes(1, cat(bytes(1, apiVersion), bytes(2, kind))), bytes(2, raw), bytes(3, ''), bytes(4, ''));
const zeroTime = num(1, -62135596800n); // Go's zero time.Time, as kubectl sends creationTimestamp
const objectMeta = (name: string, extra: Buffer[] = []) =>
  cat(bytes(1, name), bytes(2, ''), bytes(3, ''), bytes(4, ''), bytes(5, ''), bytes(6, ''), num(7, 0n), bytes(8, zeroTime), ...extra);

describe('decodeProtobufObject', () => {
  it('reads a ClusterRole as kubectl create clusterrole sends it, zero values left out as in Kubernetes\' JSON', () => {
    const rule = cat(bytes(1, 'get'), bytes(1, 'list'), bytes(2, 'certificates.plat.io'), bytes(3, 'clustertrustbundles'));
    const labels = bytes(11, cat(bytes(1, 'team'), bytes(2, 'a')));
    const managed = bytes(17, cat(bytes(1, 'kubectl-create'), bytes(2, 'Update'), bytes(3, 'rbac.authorization.k8s.io/v1'), bytes(4, num(1, 1767225600n)), bytes(6, 'FieldsV1'), bytes(7, bytes(1, '{"f:rules":{}}'))));
    const raw = cat(bytes(1, objectMeta('reader', [labels, managed])), bytes(2, rule), bytes(3, bytes(1, bytes(1, cat(bytes(1, 'x'), bytes(2, 'true'))))));
    expect(decodeProtobufObject(envelope('rbac.authorization.k8s.io/v1', 'ClusterRole', raw), ['application/json'])).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: {
        name: 'reader',
        labels: { team: 'a' },
        managedFields: [
          { manager: 'kubectl-create', operation: 'Update', apiVersion: 'rbac.authorization.k8s.io/v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:rules': {} } },
        ],
      },
      rules: [{ verbs: ['get', 'list'], apiGroups: ['certificates.plat.io'], resources: ['clustertrustbundles'] }],
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'true' } }] },
    });
  });

  it('reads bindings with their subjects and roleRef, and namespaces', () => {
    const subject = bytes(2, cat(bytes(1, 'ServiceAccount'), bytes(2, ''), bytes(3, 'builder'), bytes(4, 'team-a')));
    const roleRef = bytes(3, cat(bytes(1, 'rbac.authorization.k8s.io'), bytes(2, 'Role'), bytes(3, 'reader')));
    expect(decodeProtobufObject(envelope('rbac.authorization.k8s.io/v1', 'RoleBinding', cat(bytes(1, objectMeta('b')), subject, roleRef)), [])).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'b' },
      subjects: [{ kind: 'ServiceAccount', name: 'builder', namespace: 'team-a' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
    });
    const ns = cat(bytes(1, objectMeta('team-a', [num(10, 30n)])), bytes(2, bytes(1, 'kubernetes')), bytes(3, bytes(1, '')));
    expect(decodeProtobufObject(envelope('v1', 'Namespace', ns), [])).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team-a', deletionGracePeriodSeconds: 30 },
      spec: { finalizers: ['kubernetes'] },
    });
  });

  it('answers 400 for what is not protobuf or is cut short, and 415 for a kind it does not read in protobuf', () => {
    const error = (body: Buffer) => {
      try {
        decodeProtobufObject(body, ['application/json', 'application/yaml']);
      } catch (err) {
        return err as Error & { code: number };
      }
      throw new Error('decoded');
    };
    expect(error(Buffer.from('{"kind":"Role"}')).message).toBe('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
    expect(error(envelope('v1', 'Namespace', bytes(1, objectMeta('x')).subarray(0, 5))).message).toBe('unable to decode the protobuf body: truncated field');
    const ctb = error(envelope('certificates.plat.io/v1alpha1', 'ClusterTrustBundle', Buffer.alloc(0)));
    expect([ctb.code, ctb.message]).toEqual([415, 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml']);
  });

  it('answers any bytes with an object or a 400/415 Status, never another error (fuzz)', () => {
    const kind = fc.constantFrom('ClusterRole', 'RoleBinding', 'Namespace', 'SubjectAccessReview', 'SelfSubjectRulesReview', 'Other');
    fc.assert(
      fc.property(kind, fc.uint8Array({ maxLength: 300 }), fc.boolean(), (k, raw, framed) => {
        const body = framed ? envelope('v1', k, Buffer.from(raw)) : Buffer.concat([Buffer.from('k8s\0', 'binary'), Buffer.from(raw)]);
        try {
          const obj = decodeProtobufObject(body, []);
          expect(typeof obj).toBe('object');
        } catch (err) {
          expect(isStatusError(err)).toBe(true);
          expect([400, 415]).toContain((err as { code: number }).code);
        }
      }),
      fuzzParameters(2000),
    );
  });
});
