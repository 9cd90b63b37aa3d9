// /openapi/v2 in gnostic's protobuf form (what kubectl reads), decoded by @plat/server/testing
// (protobufjs on the vendored .proto itself, read back as kube-openapi reads gnostic documents):
// it must be the JSON document the server serves. The conversion's own property tests are the
// server's (src/openapi/openapi-v2-proto.test.ts).
import { decodeGnosticDocument, withoutProto3ZeroValues } from '@plat/server/testing';
import { request } from 'undici';
import { parse as yamlParse } from 'yaml';
import { startCluster, type TestCluster } from '../cluster.js';

const pbAccept = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const pbContentType = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

let c: TestCluster;
beforeAll(async () => {
  c = await startCluster();
});
afterAll(async () => {
  await c.close();
});

type Json = Record<string, unknown>;

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
    const { message: decoded, json: fromProtobuf } = decodeGnosticDocument(bytes);
    expect(fromProtobuf).toEqual(withoutProto3ZeroValues(json.json));
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
