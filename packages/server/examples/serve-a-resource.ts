import * as assert from 'node:assert/strict';
import { request } from 'node:https';
import { createBearerTokenAuthenticator, createBuiltinAuthorizer, createStaticTokenAuthenticator, createUnionAuthenticator } from '@plat/auth';
import { fieldError, type ApiObject } from '@plat/api-model';
import { ageCell, ageColumn, createApiServer, type ResourceDefinition } from '@plat/server';
import { openStorage } from '@plat/storage';
import { createCertificateAuthority, issueServingCertificate } from '@plat/x509';

// A resource is data plus a strategy: here a cluster-scoped Note whose spec.text may not be empty.
// (plat-apiserver's resources live in @plat/registry.)
const validate = (obj: ApiObject) => {
  const text = (obj as { spec?: { text?: unknown } }).spec?.text;
  return typeof text === 'string' && text !== '' ? [] : [fieldError.required('spec.text', '')];
};
const notes: ResourceDefinition = {
  group: 'notes.example.io',
  version: 'v1',
  resource: 'notes',
  singular: 'note',
  kind: 'Note',
  listKind: 'NoteList',
  namespaced: false,
  shortNames: [],
  categories: [],
  definitionName: 'io.example.notes.v1.Note',
  definitions: {
    'io.example.notes.v1.Note': {
      type: 'object',
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
        spec: { type: 'object', properties: { text: { type: 'string' } } },
      },
      'x-kubernetes-group-version-kind': [{ group: 'notes.example.io', version: 'v1', kind: 'Note' }],
    },
  },
  strategy: {
    validate,
    validateUpdate: (obj) => validate(obj),
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    selectableFields: (obj) => ({ 'metadata.name': obj.metadata?.name ?? '' }),
    selectableFieldNames: ['metadata.name'],
    tableColumns: [ageColumn],
    tableCells: (obj) => [ageCell(obj)],
  },
};

const ca = await createCertificateAuthority({ commonName: 'example-ca' });
const serving = await issueServingCertificate(ca, { commonName: 'localhost', ipAddresses: ['127.0.0.1'] });
const tokens = new Map([['t0ken-admin', { username: 'admin', groups: ['system:masters'] }]]);
const server = createApiServer({
  storage: await openStorage({ backend: 'memory' }),
  authenticator: createUnionAuthenticator([createBearerTokenAuthenticator(createStaticTokenAuthenticator(tokens))]),
  authorizer: createBuiltinAuthorizer(),
  resources: [notes],
  tls: { cert: serving.certPem, key: serving.keyPem },
});
const { url } = await server.listen({ host: '127.0.0.1', port: 0 });
// POST a Note, trusting the example CA: the status code and the body's text.
const post = (body: unknown) =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(`${url}/apis/notes.example.io/v1/notes`, {
      method: 'POST',
      ca: ca.certPem,
      headers: { authorization: 'Bearer t0ken-admin', 'content-type': 'application/json' },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
try {
  const created = await post({ apiVersion: 'notes.example.io/v1', kind: 'Note', metadata: { name: 'hello' }, spec: { text: 'hi' } });
  assert.equal(created.status, 201);
  const invalid = await post({ apiVersion: 'notes.example.io/v1', kind: 'Note', metadata: { name: 'empty' }, spec: {} });
  assert.equal(invalid.status, 422);
  console.log((JSON.parse(invalid.text) as { message: string }).message);
} finally {
  await server.close();
}
