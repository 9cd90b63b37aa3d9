// /openapi/v2 in gnostic's protobuf form (what kubectl reads), decoded with protobufjs from the
// vendored .proto itself (not the generated descriptor) and turned back into JSON the way
// kube-openapi reads gnostic documents (src/testing/gnostic-json.ts): it must be the JSON
// document the server serves.
import fc from 'fast-check';
import { isStatusError } from '@plat/api-model';
import { decodeGnosticDocument, withoutProto3ZeroValues } from '../testing.js';
import { negotiateOpenApiV2 } from './negotiate-v2.js';
import { openApiV2ProtoEncoder } from './openapi-v2-proto.js';

const pbAccept = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const pbContentType = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

type Json = Record<string, unknown>;

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
        expect(decodeGnosticDocument(encode(doc)).json).toEqual(withoutProto3ZeroValues(doc));
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

