import * as assert from 'node:assert/strict';
import {
  SelectorError,
  StatusError,
  certificatesGroup,
  clusterTrustBundleFields,
  clusterTrustBundleKind,
  clusterTrustBundleSchema,
  newInvalid,
  parseFieldSelector,
  parseLabelSelector,
  validateClusterTrustBundle,
} from '@plat/api-model';
import { createCertificateAuthority } from '@plat/x509';

// A ClusterTrustBundle as it arrives on the wire: decoded with its zod schema, then validated
// with Kubernetes' rules (field errors, never exceptions).
const ca = await createCertificateAuthority({ commonName: 'example-ca' });
const bundle = clusterTrustBundleSchema.parse({
  apiVersion: 'certificates.plat.io/v1alpha1',
  kind: 'ClusterTrustBundle',
  metadata: { name: 'example.com:signer:roots', labels: { env: 'prod' } },
  spec: { signerName: 'example.com/signer', trustBundle: ca.certPem },
});
assert.deepEqual(validateClusterTrustBundle(bundle), []);

// A name without the signer prefix: one field error, printed as kube-apiserver prints it.
const renamed = { ...bundle, metadata: { ...bundle.metadata, name: 'roots' } };
const errors = validateClusterTrustBundle(renamed);
assert.equal(errors.length, 1);
console.log(errors[0]!.toString());

// The 422 Status a server answers with those errors.
const invalid = newInvalid({ group: certificatesGroup, kind: clusterTrustBundleKind }, 'roots', errors);
assert.ok(invalid instanceof StatusError);
assert.equal(invalid.status.code, 422);
assert.equal(invalid.status.details?.causes?.[0]?.field, 'metadata.name');

// Label and field selectors, compiled once, with Kubernetes' syntax and messages.
assert.equal(parseLabelSelector('env in (prod,staging),!legacy').matches(bundle.metadata?.labels), true);
assert.equal(parseFieldSelector('spec.signerName=example.com/signer').matches(clusterTrustBundleFields(bundle)), true);
assert.throws(() => parseLabelSelector('env in prod'), SelectorError);
