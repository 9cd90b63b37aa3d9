// /openapi/v2 in gnostic's protobuf form (what kubectl reads), decoded with protobufjs from the
// vendored .proto itself (not the generated descriptor) and turned back into JSON the way
// kube-openapi reads gnostic documents (pkg/validation/spec gnostic.go, FromGnostic): it must be
// the JSON document the server serves.
import fc from 'fast-check';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { request } from 'undici';
import { parse as yamlParse } from 'yaml';
import { isStatusError } from '@plat/api-model';
import { startCluster, type TestCluster } from '../../test/cluster.js';
import { negotiateOpenApiV2 } from './negotiate-v2.js';
import { openApiV2ProtoEncoder } from './openapi-v2-proto.js';

const protoFile = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'tools', 'gnostic', 'OpenAPIv2.proto');
const pbAccept = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const pbContentType = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

let c: TestCluster;
let documentType: protobuf.Type;
beforeAll(async () => {
  c = await startCluster();
  documentType = protobuf.loadSync(protoFile).lookupType('openapi.v2.Document');
});
afterAll(async () => {
  await c.close();
});

type Json = Record<string, unknown>;

/** A decoded gnostic message back to OpenAPI JSON (the inverse of gnostic's compiler). */
function toJson(type: protobuf.Type, msg: Json): unknown {
  switch (type.name) {
    case 'Any':
      return yamlParse(String(msg['yaml']));
    case 'TypeItem':
      return (msg['value'] as string[]).length === 1 ? (msg['value'] as string[])[0] : msg['value'];
    case 'StringArray':
      return msg['value'] ?? [];
    case 'ItemsItem':
      return toJson(type.root.lookupType('openapi.v2.Schema'), (msg['schema'] as Json[])[0]!);
  }
  if (type.oneofsArray.length === 1 && type.fieldsArray.every((f) => f.partOf)) {
    const chosen = msg[String(msg['oneof'])];
    const field = type.fields[String(msg['oneof'])]!;
    return field.resolvedType ? toJson(field.resolvedType as protobuf.Type, chosen as Json) : chosen;
  }
  const out: Json = {};
  for (const field of type.fieldsArray) {
    const v = msg[field.name];
    if (v === undefined) continue;
    const sub = field.resolvedType as protobuf.Type | null;
    if (field.name === 'vendorExtension' || (field.repeated && sub?.name.startsWith('Named'))) {
      const valueField = sub!.fields['value']!;
      for (const entry of v as Json[]) {
        const value = entry['value'];
        out[String(entry['name'])] = valueField.resolvedType ? toJson(valueField.resolvedType as protobuf.Type, (value ?? {}) as Json) : value;
      }
      continue;
    }
    const key = field.name === '_ref' ? '$ref' : field.name;
    if (!sub) out[key] = v;
    else out[key] = field.repeated ? (v as Json[]).map((m) => toJson(sub, m)) : toJson(sub, v as Json);
  }
  return out;
}

/** The JSON without what proto3 cannot carry: false, "", 0 and [] outside free-form values. */
function withoutZeroValues(value: unknown, inResponses = false): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => withoutZeroValues(v));
  const out: Json = {};
  for (const [k, v] of Object.entries(value as Json)) {
    if (inResponses) {
      // Response codes: `default` is one of them here.
      out[k] = withoutZeroValues(v);
      continue;
    }
    // Free-form values (an enum's values; an empty enum is no field) and security requirements
    // (maps to lists, empty ones included) are carried whole; additionalProperties is a oneof,
    // whose `false` is on the wire.
    if (k === 'enum' && Array.isArray(v) && v.length === 0) continue;
    if (k === 'default' || k === 'example' || k === 'enum' || k === 'security' || k.startsWith('x-') || (k === 'additionalProperties' && v === false)) {
      out[k] = v;
      continue;
    }
    if (v === false || v === '' || v === 0 || (Array.isArray(v) && v.length === 0)) continue;
    out[k] = withoutZeroValues(v, k === 'responses');
  }
  return out;
}

describe('/openapi/v2 as protobuf', () => {
  it("answers kubectl's Accept with gnostic's Document, which decodes to the JSON document", async () => {
    const json = await c.req('reader', 'GET', '/openapi/v2');
    const res = await request(`${c.url}/openapi/v2`, { headers: { accept: pbAccept }, dispatcher: c.agent('reader') });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(pbContentType);
    expect(res.headers['vary']).toBe('Accept');
    // kube-openapi gives both forms the JSON's ETag (the answer varies by Accept).
    expect(res.headers['etag']).toBe(json.headers['etag']);
    const bytes = Buffer.from(await res.body.arrayBuffer());
    const decoded = documentType.toObject(documentType.decode(bytes), { longs: Number, oneofs: true }) as Json;
    expect(toJson(documentType, decoded)).toEqual(withoutZeroValues(json.json));
    // What kubectl reads for validation: the GVK extension of a definition, as YAML.
    const definitions = (decoded['definitions'] as { additionalProperties: Array<{ name: string; value: Json }> }).additionalProperties;
    const ctb = definitions.find((d) => d.name === 'io.plat.api.certificates.v1alpha1.ClusterTrustBundle')!;
    const gvk = (ctb.value['vendorExtension'] as Array<{ name: string; value: { yaml: string } }>).find((e) => e.name === 'x-kubernetes-group-version-kind')!;
    expect(yamlParse(gvk.value.yaml)).toEqual([{ group: 'certificates.plat.io', kind: 'ClusterTrustBundle', version: 'v1alpha1' }]);
  });

  it('negotiates by quality and specificity as kube-openapi does, and answers 406 to nothing it serves', async () => {
    const typeOf = async (accept: string) => {
      const r = await c.req('reader', 'GET', '/openapi/v2', { headers: { accept } });
      return r.status === 200 ? r.headers['content-type'] : r.status;
    };
    expect(await typeOf(pbAccept)).toBe(pbContentType);
    expect(await typeOf('application/com.github.proto-openapi.spec.v2.v1.0+protobuf')).toBe(pbContentType);
    expect(await typeOf(`application/json;q=0.5, ${pbAccept}`)).toBe(pbContentType);
    expect(await typeOf(`${pbAccept};q=0.5, application/json`)).toBe('application/json');
    expect(await typeOf(`*/*, ${pbAccept}`)).toBe(pbContentType);
    expect(await typeOf(`${pbAccept};q=0, application/json;q=0.1`)).toBe('application/json');
    expect(await typeOf('application/*')).toBe('application/json');
    expect(await typeOf('application/yaml')).toBe('application/yaml');
    expect(await typeOf('text/html')).toBe(406);
    expect(await typeOf(`${pbAccept};q=0`)).toBe(406);
  });

  it('answers 304 to a client holding the current version, in either form', async () => {
    const first = await c.req('reader', 'GET', '/openapi/v2', { headers: { accept: pbAccept } });
    const etag = String(first.headers['etag']);
    expect(etag).toMatch(/^"[0-9A-F]{32}"$/);
    for (const accept of [pbAccept, 'application/json']) {
      const again = await c.req('reader', 'GET', '/openapi/v2', { headers: { accept, 'if-none-match': etag } });
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
    }
    expect((await c.req('reader', 'GET', '/openapi/v2', { headers: { accept: pbAccept, 'if-none-match': '"other"' } })).status).toBe(200);
  });

  it('answers the same bytes again, and a second server with other APIs its own document', async () => {
    const one = await c.req('reader', 'GET', '/openapi/v2', { headers: { accept: pbAccept } });
    const two = await c.req('reader', 'GET', '/openapi/v2', { headers: { accept: pbAccept } });
    expect(two.text).toBe(one.text);
    const other = await startCluster({ reviews: false });
    try {
      const theirs = await other.req('reader', 'GET', '/openapi/v2', { headers: { accept: pbAccept } });
      expect(theirs.status).toBe(200);
      expect(theirs.text).not.toBe(one.text);
    } finally {
      await other.close();
    }
  });
});

/** Swagger 2.0 documents of the shapes gnostic's message holds (schemas nested a few levels). */
const name = fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9.]{0,12}$/);
const text = fc.string({ maxLength: 20 });
const freeForm = fc.jsonValue({ maxDepth: 1 });
const extensions = fc.dictionary(name.map((n) => `x-${n}`), freeForm, { maxKeys: 2 });
const { schema } = fc.letrec<{ schema: Json }>((tie) => ({
  schema: fc
    .record(
      {
        type: fc.oneof(fc.constantFrom('string', 'integer', 'object', 'array', 'boolean'), fc.constant(['string', 'null'])),
        format: fc.constantFrom('int64', 'byte', 'date-time'),
        description: text,
        $ref: name.map((n) => `#/definitions/${n}`),
        default: freeForm,
        enum: fc.array(freeForm, { maxLength: 3 }),
        required: fc.array(name, { maxLength: 3 }),
        maxLength: fc.integer({ min: 1, max: 1000 }),
        minimum: fc.double({ noNaN: true, noDefaultInfinity: true }),
        uniqueItems: fc.boolean(),
        items: fc.oneof({ depthSize: 'small', maxDepth: 2 }, fc.constant(undefined), tie('schema')),
        properties: fc.oneof({ depthSize: 'small', maxDepth: 2 }, fc.constant(undefined), fc.dictionary(name, tie('schema'), { maxKeys: 2 })),
        additionalProperties: fc.oneof({ depthSize: 'small', maxDepth: 2 }, fc.boolean(), fc.constant(undefined), tie('schema')),
        allOf: fc.oneof({ depthSize: 'small', maxDepth: 2 }, fc.constant(undefined), fc.array(tie('schema'), { maxLength: 1 })),
      },
      { requiredKeys: [] },
    )
    .chain((s) => extensions.map((x) => JSON.parse(JSON.stringify({ ...s, ...x })) as Json)),
}));
const parameter = fc.oneof(
  fc.record({ in: fc.constantFrom('query', 'path', 'header', 'formData'), name, type: fc.constantFrom('string', 'boolean', 'integer'), description: text, required: fc.boolean(), uniqueItems: fc.boolean() }),
  fc.record({ in: fc.constant('body'), name, required: fc.boolean(), schema }),
  name.map((n) => ({ $ref: `#/parameters/${n}` })),
);
const operation = fc.record(
  {
    description: text,
    operationId: name,
    consumes: fc.array(fc.constantFrom('application/json', 'application/yaml'), { maxLength: 2 }),
    parameters: fc.array(parameter, { maxLength: 3 }),
    responses: fc.dictionary(fc.constantFrom('200', '201', '401', 'default'), fc.oneof(fc.record({ description: text, schema }), name.map((n) => ({ $ref: `#/responses/${n}` }))), { maxKeys: 3 }),
    tags: fc.array(name, { maxLength: 2 }),
    deprecated: fc.boolean(),
  },
  { requiredKeys: ['responses'] },
);
const swagger = fc
  .record({
    swagger: fc.constant('2.0'),
    info: fc.record({ title: text, version: text }),
    paths: fc.dictionary(name.map((n) => `/${n}`), fc.record({ get: operation, post: operation, parameters: fc.array(parameter, { maxLength: 2 }) }, { requiredKeys: [] }), { maxKeys: 2 }),
    definitions: fc.dictionary(name, schema, { maxKeys: 2 }),
    securityDefinitions: fc.constant({ BearerToken: { description: 'Bearer Token authentication', in: 'header', name: 'authorization', type: 'apiKey' } }),
    security: fc.constant([{ BearerToken: [] }]),
  })
  .chain((d) => extensions.map((x) => JSON.parse(JSON.stringify({ ...d, ...x })) as Json));

describe('the gnostic conversion', () => {
  it('carries any Swagger 2.0 document of these shapes: decoding gives the JSON back (but the zero values proto3 drops)', async () => {
    const encode = await openApiV2ProtoEncoder();
    fc.assert(
      fc.property(swagger, (doc) => {
        const decoded = documentType.toObject(documentType.decode(encode(doc)), { longs: Number, oneofs: true }) as Json;
        expect(toJson(documentType, decoded)).toEqual(withoutZeroValues(doc));
      }),
      { numRuns: 50 },
    );
  });

  it('negotiates any Accept header to a form or a 406 Status, never anything else', () => {
    const clause = fc.tuple(
      fc.oneof(fc.constantFrom('application/json', 'application/*', '*/*', 'application/yaml', 'text/html', pbAccept, pbContentType), fc.string({ maxLength: 12 })),
      fc.oneof(fc.constant(''), fc.double({ min: 0, max: 1, noNaN: true }).map((q) => `;q=${q}`), fc.string({ maxLength: 8 }).map((p) => `;${p}`)),
    );
    fc.assert(
      fc.property(fc.array(clause, { maxLength: 5 }), (clauses) => {
        const header = clauses.map(([t, p]) => `${t}${p}`).join(', ');
        try {
          expect(['json', 'yaml', 'protobuf']).toContain(negotiateOpenApiV2(header));
        } catch (err) {
          expect(isStatusError(err) && err.status.code === 406).toBe(true);
        }
      }),
    );
  });
});
