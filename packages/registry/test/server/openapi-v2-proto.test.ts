// /openapi/v2 in gnostic's protobuf form (what kubectl reads), decoded with protobufjs from the
// vendored .proto itself (not the generated descriptor) and turned back into JSON the way
// kube-openapi reads gnostic documents (pkg/validation/spec gnostic.go, FromGnostic): it must be
// the JSON document the server serves. The conversion's own property tests are the server's
// (src/openapi/openapi-v2-proto.test.ts).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { request } from 'undici';
import { parse as yamlParse } from 'yaml';
import { startCluster, type TestCluster } from '../cluster.js';

// The server's vendored gnostic OpenAPIv2.proto, to decode what it answers.
const protoFile = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'server', 'tools', 'gnostic', 'OpenAPIv2.proto');
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
