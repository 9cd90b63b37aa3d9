import { bundle, ctbPath, startCluster, type TestCluster } from '../../cluster.js';

let c: TestCluster;
beforeAll(async () => {
  c = await startCluster();
});
afterAll(async () => {
  await c.close();
});

type Obj = { metadata: Record<string, unknown>; spec: Record<string, unknown>; [k: string]: unknown };

describe('create', () => {
  it('answers 201 with the stored object, its uid, resourceVersion, creationTimestamp and managedFields', async () => {
    const res = await c.req<Obj>('writer', 'POST', `${ctbPath}?fieldManager=tester`, { body: bundle('create-one', c.anchorPem) });
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json.kind).toBe('ClusterTrustBundle');
    expect(res.json.apiVersion).toBe('certificates.plat.io/v1alpha1');
    expect(res.json.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.json.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(res.json.metadata.creationTimestamp).toMatch(/Z$/);
    expect(res.json.metadata.managedFields).toEqual([
      {
        manager: 'tester',
        operation: 'Update',
        apiVersion: 'certificates.plat.io/v1alpha1',
        time: expect.any(String),
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:trustBundle': {} } },
      },
    ]);
    const got = await c.req<Obj>('reader', 'GET', `${ctbPath}/create-one`);
    expect(got.status).toBe(200);
    expect(got.json.metadata.resourceVersion).toBe(res.json.metadata.resourceVersion);
  });

  it('derives the field manager from the user agent when none is given', async () => {
    const res = await c.req<Obj>('writer', 'POST', ctbPath, {
      body: bundle('ua-manager', c.anchorPem, undefined, { metadata: { labels: { a: 'b' } } }),
      headers: { 'user-agent': 'kubectl/v1.32.0 (linux/amd64)' },
    });
    expect(res.status).toBe(201);
    const mf = res.json.metadata.managedFields as Array<Record<string, unknown>>;
    expect(mf[0]!.manager).toBe('kubectl');
    expect(mf[0]!.fieldsV1).toEqual({ 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } }, 'f:spec': { 'f:trustBundle': {} } });
  });

  it('answers 409 AlreadyExists for a second create of the same name', async () => {
    await c.req('writer', 'POST', ctbPath, { body: bundle('dup', c.anchorPem) });
    const res = await c.req('writer', 'POST', ctbPath, { body: bundle('dup', c.anchorPem) });
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'AlreadyExists',
      code: 409,
      message: 'clustertrustbundles.certificates.plat.io "dup" already exists',
      details: { name: 'dup', group: 'certificates.plat.io', kind: 'clustertrustbundles' },
    });
  });

  it('generates a name from generateName', async () => {
    const body = bundle('', c.anchorPem);
    (body['metadata'] as Record<string, unknown>) = { generateName: 'gen-' };
    const res = await c.req<Obj>('writer', 'POST', ctbPath, { body });
    expect(res.status).toBe(201);
    expect(res.json.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(res.json.metadata.generateName).toBe('gen-');
  });

  it('with dryRun=All validates and answers without storing', async () => {
    const res = await c.req<Obj>('writer', 'POST', `${ctbPath}?dryRun=All`, { body: bundle('dry', c.anchorPem) });
    expect(res.status).toBe(201);
    expect(res.json.metadata.name).toBe('dry');
    expect((await c.req('reader', 'GET', `${ctbPath}/dry`)).status).toBe(404);
    const bad = await c.req('writer', 'POST', `${ctbPath}?dryRun=All`, { body: bundle('dry', 'not a pem') });
    expect(bad.status).toBe(422);
  });

  it('rejects an unknown dryRun value with 422 naming CreateOptions', async () => {
    const res = await c.req('writer', 'POST', `${ctbPath}?dryRun=Some`, { body: bundle('dry2', c.anchorPem) });
    expect(res.status).toBe(422);
    expect(res.json['message']).toBe('CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"');
  });

  it('answers 422 Invalid with field causes for a bundle that is not PEM', async () => {
    const res = await c.req('writer', 'POST', ctbPath, { body: bundle('bad-pem', 'hello') });
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({ reason: 'Invalid', code: 422, details: { name: 'bad-pem', group: 'certificates.plat.io', kind: 'ClusterTrustBundle' } });
    const causes = (res.json['details'] as { causes: Array<{ field: string; reason: string }> }).causes;
    expect(causes.some((cause) => cause.field === 'spec.trustBundle' && cause.reason === 'FieldValueInvalid')).toBe(true);
    expect(String(res.json['message'])).toMatch(/^ClusterTrustBundle\.certificates\.plat\.io "bad-pem" is invalid: spec\.trustBundle: Invalid value/);
  });

  it('answers 422 when the name does not carry the signer prefix', async () => {
    const res = await c.req('attester', 'POST', ctbPath, { body: bundle('wrong-name', c.anchorPem, 'example.com/signer') });
    expect(res.status).toBe(422);
    expect((res.json['details'] as { causes: Array<{ field: string }> }).causes[0]!.field).toBe('metadata.name');
  });

  it('needs attest on the signer: 403 with Kubernetes wording, allowed through a <domain>/* grant', async () => {
    const denied = await c.req('writer', 'POST', ctbPath, { body: bundle('example.com:signer:one', c.anchorPem, 'example.com/signer') });
    expect(denied.status).toBe(403);
    expect(denied.json['message']).toBe(
      'clustertrustbundles.certificates.plat.io "example.com:signer:one" is forbidden: user not permitted to attest for signerName "example.com/signer"',
    );
    const ok = await c.req('attester', 'POST', ctbPath, { body: bundle('example.com:signer:one', c.anchorPem, 'example.com/signer') });
    expect(ok.status).toBe(201);
    // The GC-only exception: someone without attest may still change finalizers.
    const patched = await c.req('writer', 'PATCH', `${ctbPath}/example.com:signer:one`, {
      raw: JSON.stringify({ metadata: { finalizers: ['example.com/keep'] } }),
      contentType: 'application/merge-patch+json',
    });
    expect(patched.status).toBe(200);
    const relabel = await c.req('writer', 'PATCH', `${ctbPath}/example.com:signer:one`, {
      raw: JSON.stringify({ metadata: { labels: { x: 'y' } } }),
      contentType: 'application/merge-patch+json',
    });
    expect(relabel.status).toBe(403);
    const byAttester = await c.req('attester', 'PATCH', `${ctbPath}/example.com:signer:one`, {
      raw: JSON.stringify({ metadata: { labels: { x: 'y' } } }),
      contentType: 'application/merge-patch+json',
    });
    expect(byAttester.status).toBe(200);
    const resign = await c.req('admin', 'PATCH', `${ctbPath}/example.com:signer:one`, {
      raw: JSON.stringify({ spec: { signerName: 'example.com/other' } }),
      contentType: 'application/merge-patch+json',
    });
    expect(resign.status).toBe(422);
    const fields = (resign.json['details'] as { causes: Array<{ field: string; message: string }> }).causes.map((x) => x.field);
    expect(fields).toContain('spec.signerName');
    await c.req('admin', 'PATCH', `${ctbPath}/example.com:signer:one`, {
      raw: JSON.stringify({ metadata: { finalizers: null } }),
      contentType: 'application/merge-patch+json',
    });
  });

  it('answers 400 for malformed JSON and YAML, 415 for other media types', async () => {
    const json = await c.req('writer', 'POST', ctbPath, { raw: '{"metadata": ', contentType: 'application/json' });
    expect(json.status).toBe(400);
    expect(json.json).toMatchObject({ reason: 'BadRequest', code: 400 });
    // kube-apiserver's transformDecodeError for a body whose kind cannot be read, with its first bytes.
    expect(json.json['message']).toBe(
      `the object provided is unrecognized (must be of type ClusterTrustBundle): couldn't get version/kind; json parse error: unexpected end of JSON input ({"metadata": )`,
    );
    const yaml = await c.req('writer', 'POST', ctbPath, { raw: 'metadata: [unclosed', contentType: 'application/yaml' });
    expect(yaml.status).toBe(400);
    const other = await c.req('writer', 'POST', ctbPath, { raw: 'x', contentType: 'text/plain' });
    expect(other.status).toBe(415);
    expect(other.json['reason']).toBe('UnsupportedMediaType');
    const array = await c.req('writer', 'POST', ctbPath, { raw: '[]' });
    expect(array.status).toBe(400);
  });

  it('accepts YAML bodies', async () => {
    const pem = c.anchorPem.trim().split('\n').map((l) => `    ${l}`).join('\n');
    const text = `apiVersion: certificates.plat.io/v1alpha1\nkind: ClusterTrustBundle\nmetadata:\n  name: from-yaml\nspec:\n  trustBundle: |\n${pem}\n`;
    const res = await c.req<Obj>('writer', 'POST', ctbPath, { raw: text, contentType: 'application/yaml' });
    expect(res.status).toBe(201);
    expect(res.json.spec['trustBundle']).toBe(`${c.anchorPem.trim()}\n`);
  });

  it('answers 400 for a mismatching apiVersion or kind and for wrongly typed fields', async () => {
    const wrongVersion = await c.req('writer', 'POST', ctbPath, { body: { ...bundle('v', c.anchorPem), apiVersion: 'v1' } });
    expect(wrongVersion.status).toBe(400);
    expect(wrongVersion.json['message']).toBe('the API version in the data (v1) does not match the expected API version (certificates.plat.io/v1alpha1)');
    const wrongKind = await c.req('writer', 'POST', ctbPath, { body: { ...bundle('v', c.anchorPem), kind: 'Pod' } });
    expect(wrongKind.status).toBe(400);
    const wrongType = await c.req('writer', 'POST', ctbPath, { body: { ...bundle('v', c.anchorPem), spec: { trustBundle: 5 } } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.json['message']).toBe(
      'ClusterTrustBundle in version "v1alpha1" cannot be handled as a ClusterTrustBundle: json: cannot unmarshal number into field spec.trustBundle of type string',
    );
  });

  it('answers 500 InternalError for a create carrying a resourceVersion, as kube-apiserver does', async () => {
    const res = await c.req('writer', 'POST', ctbPath, { body: bundle('with-rv', c.anchorPem, undefined, { metadata: { resourceVersion: '5' } }) });
    expect(res.status).toBe(500);
    expect(res.json['message']).toBe('Internal error occurred: resourceVersion should not be set on objects to be created');
  });
});

describe('fieldValidation', () => {
  const body = () => ({ ...bundle('fv', '__PEM__'), extra: 1, spec: { trustBundle: '__PEM__', unknownSpec: true } });
  const raw = () =>
    JSON.stringify(body())
      .replaceAll('__PEM__', c.anchorPem.replaceAll('\n', '\\n'))
      .replace('"metadata":{"name":"fv"}', '"metadata":{"name":"fv","name":"fv"}');

  it('Strict answers 400 listing unknown and duplicate fields', async () => {
    const res = await c.req('writer', 'POST', `${ctbPath}?fieldValidation=Strict`, { raw: raw() });
    expect(res.status).toBe(400);
    expect(res.json['message']).toBe(
      'ClusterTrustBundle in version "v1alpha1" cannot be handled as a ClusterTrustBundle: strict decoding error: unknown field "spec.unknownSpec", unknown field "extra", duplicate field "metadata.name"',
    );
  });

  it('Warn (the default) stores the object without the unknown fields and sends Warning headers', async () => {
    const res = await c.req<Obj>('writer', 'POST', ctbPath, { raw: raw() });
    expect(res.status).toBe(201);
    expect(res.json['extra']).toBeUndefined();
    expect(res.json.spec['unknownSpec']).toBeUndefined();
    const warning = res.headers['warning'];
    const list = Array.isArray(warning) ? warning.join(', ') : String(warning);
    expect(list).toContain('299 - "unknown field \\"extra\\""');
    expect(list).toContain('299 - "duplicate field \\"metadata.name\\""');
  });

  it('Ignore drops silently; an unknown value is 422 on CreateOptions', async () => {
    await c.req('admin', 'DELETE', `${ctbPath}/fv`);
    const res = await c.req('writer', 'POST', `${ctbPath}?fieldValidation=Ignore`, { raw: raw() });
    expect(res.status).toBe(201);
    expect(res.headers['warning']).toBeUndefined();
    const bad = await c.req('writer', 'POST', `${ctbPath}?fieldValidation=Loud`, { raw: raw() });
    expect(bad.status).toBe(422);
    expect(String(bad.json['message'])).toContain('fieldValidation: Unsupported value: "Loud"');
  });

  it('reports repeated YAML keys with their line, as the YAML decoder words them', async () => {
    const pem = c.anchorPem.trim().split('\n').map((l) => `    ${l}`).join('\n');
    const text = `apiVersion: certificates.plat.io/v1alpha1\nkind: ClusterTrustBundle\nmetadata:\n  name: yaml-dup\n  name: yaml-dup\nspec:\n  trustBundle: |\n${pem}\n`;
    const strict = await c.req('writer', 'POST', `${ctbPath}?fieldValidation=Strict`, { raw: text, contentType: 'application/yaml' });
    expect(strict.status).toBe(400);
    expect(strict.json['message']).toBe(
      'ClusterTrustBundle in version "v1alpha1" cannot be handled as a ClusterTrustBundle: strict decoding error: yaml: unmarshal errors:\n  line 5: key "name" already set in map',
    );
    const ignored = await c.req('writer', 'POST', `${ctbPath}?fieldValidation=Ignore`, { raw: text, contentType: 'application/yaml' });
    expect(ignored.status).toBe(201);
  });

  it('rejects an invalid fieldManager with 422', async () => {
    const res = await c.req('writer', 'POST', `${ctbPath}?fieldManager=${'m'.repeat(129)}`, { body: bundle('fm', c.anchorPem) });
    expect(res.status).toBe(422);
    expect(String(res.json['message'])).toContain('CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long');
  });
});

describe('get', () => {
  it('answers 404 NotFound with Kubernetes message', async () => {
    const res = await c.req('reader', 'GET', `${ctbPath}/missing`);
    expect(res.status).toBe(404);
    expect(res.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'clustertrustbundles.certificates.plat.io "missing" not found',
      reason: 'NotFound',
      details: { name: 'missing', group: 'certificates.plat.io', kind: 'clustertrustbundles' },
      code: 404,
    });
  });

  it('indents with pretty=true and for curl', async () => {
    await c.req('writer', 'POST', ctbPath, { body: bundle('pretty', c.anchorPem) });
    const res = await c.req('reader', 'GET', `${ctbPath}/pretty?pretty=true`);
    expect(res.text.startsWith('{\n  "kind": "ClusterTrustBundle"')).toBe(true);
    const curl = await c.req('reader', 'GET', `${ctbPath}/pretty`, { headers: { 'user-agent': 'curl/8.0' } });
    expect(curl.text.startsWith('{\n  "kind"')).toBe(true);
    const plain = await c.req('reader', 'GET', `${ctbPath}/pretty?pretty=false`, { headers: { 'user-agent': 'curl/8.0' } });
    expect(plain.text.startsWith('{"kind"')).toBe(true);
  });

  it('serves YAML when asked and 406 for unknown media types', async () => {
    const yaml = await c.req('reader', 'GET', `${ctbPath}/pretty`, { headers: { accept: 'application/yaml' } });
    expect(yaml.headers['content-type']).toBe('application/yaml');
    expect(yaml.text).toMatch(/^kind: ClusterTrustBundle\napiVersion: certificates.plat.io\/v1alpha1\n/);
    const none = await c.req('reader', 'GET', `${ctbPath}/pretty`, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    expect(none.status).toBe(406);
    expect(none.json['reason']).toBe('NotAcceptable');
  });

  it('answers a one-row Table with NAME, SIGNERNAME and AGE for kubectl (and the wide ANCHORS, NOT-AFTER)', async () => {
    const res = await c.req('reader', 'GET', `${ctbPath}/pretty`, {
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' },
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json;g=meta.k8s.io;v=v1;as=Table');
    const table = res.json as { kind: string; apiVersion: string; columnDefinitions: Array<{ name: string }>; rows: Array<{ cells: unknown[]; object: { kind: string } }> };
    expect(table.kind).toBe('Table');
    expect(table.apiVersion).toBe('meta.k8s.io/v1');
    expect(table.columnDefinitions.map((col) => col.name)).toEqual(['Name', 'SignerName', 'Age', 'Anchors', 'Not-After']);
    expect(table.rows[0]!.cells[0]).toBe('pretty');
    expect(table.rows[0]!.cells[1]).toBe('<none>');
    expect(table.rows[0]!.cells[2]).toMatch(/^\d+s$/);
    expect(table.rows[0]!.object.kind).toBe('PartialObjectMetadata');
    const plat = await c.req('reader', 'GET', `${ctbPath}/pretty?includeObject=None`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.plat.io' } });
    expect((plat.json as { apiVersion: string }).apiVersion).toBe('meta.plat.io/v1');
    expect((plat.json as { rows: Array<Record<string, unknown>> }).rows[0]!['object']).toBeUndefined();
  });
});

describe('update', () => {
  it('replaces the object, bumps resourceVersion and answers 409 for a stale resourceVersion', async () => {
    const created = await c.req<Obj>('writer', 'POST', ctbPath, { body: bundle('upd', c.anchorPem) });
    const next = { ...created.json, metadata: { ...created.json.metadata, labels: { tier: 'gold' } } };
    const res = await c.req<Obj>('writer', 'PUT', `${ctbPath}/upd?fieldManager=editor`, { body: next });
    expect(res.status).toBe(200);
    expect(res.json.metadata['labels']).toEqual({ tier: 'gold' });
    expect(Number(res.json.metadata.resourceVersion)).toBeGreaterThan(Number(created.json.metadata.resourceVersion));
    const mf = res.json.metadata['managedFields'] as Array<{ manager: string; fieldsV1: unknown }>;
    expect(mf.find((m) => m.manager === 'editor')!.fieldsV1).toEqual({ 'f:metadata': { 'f:labels': { '.': {}, 'f:tier': {} } } });
    const stale = await c.req('writer', 'PUT', `${ctbPath}/upd`, { body: next });
    expect(stale.status).toBe(409);
    expect(stale.json).toMatchObject({
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on clustertrustbundles.certificates.plat.io "upd": the object has been modified; please apply your changes to the latest version and try again',
    });
  });

  it('treats a uid in the body as a precondition (409 when it differs)', async () => {
    const current = await c.req<Obj>('reader', 'GET', `${ctbPath}/upd`);
    const res = await c.req('writer', 'PUT', `${ctbPath}/upd`, { body: { ...current.json, metadata: { ...current.json.metadata, uid: 'another-uid' } } });
    expect(res.status).toBe(409);
    expect(res.json['message']).toBe(
      `Operation cannot be fulfilled on clustertrustbundles.certificates.plat.io "upd": Precondition failed: UID in precondition: another-uid, UID in object meta: ${current.json.metadata.uid}`,
    );
  });

  it('without resourceVersion (or with "0") answers 422, as the ClusterTrustBundle strategy allows no unconditional update', async () => {
    const before = await c.req<Obj>('reader', 'GET', `${ctbPath}/upd`);
    for (const rv of [undefined, '0']) {
      const res = await c.req<Obj>('writer', 'PUT', `${ctbPath}/upd`, { body: bundle('upd', c.anchorPem2, undefined, { metadata: rv ? { resourceVersion: rv } : {} }) });
      expect(res.status).toBe(422);
      expect(res.json).toMatchObject({
        kind: 'Status',
        reason: 'Invalid',
        code: 422,
        message: 'clustertrustbundles.certificates.plat.io "upd" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update',
        details: {
          name: 'upd',
          group: 'certificates.plat.io',
          kind: 'clustertrustbundles',
          causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be specified for an update', field: 'metadata.resourceVersion' }],
        },
      });
    }
    const after = await c.req<Obj>('reader', 'GET', `${ctbPath}/upd`);
    expect(after.json.metadata.resourceVersion).toBe(before.json.metadata.resourceVersion);
    // A patch starts from the stored object and keeps its resourceVersion; one that removes it is an unconditional update.
    const patched = await c.req<Obj>('writer', 'PATCH', `${ctbPath}/upd`, { raw: '{"metadata":{"labels":{"p":"1"}}}', contentType: 'application/merge-patch+json' });
    expect(patched.status).toBe(200);
    const dropped = await c.req('writer', 'PATCH', `${ctbPath}/upd`, { raw: '{"metadata":{"resourceVersion":null}}', contentType: 'application/merge-patch+json' });
    expect(dropped.status).toBe(422);
    expect(dropped.json['message']).toBe('clustertrustbundles.certificates.plat.io "upd" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update');
  });

  it('answers 404 for a missing object (no create on update) and 400 for a name mismatch', async () => {
    const missing = await c.req('writer', 'PUT', `${ctbPath}/nope`, { body: bundle('nope', c.anchorPem) });
    expect(missing.status).toBe(404);
    const mismatch = await c.req('writer', 'PUT', `${ctbPath}/upd`, { body: bundle('other', c.anchorPem) });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json['message']).toBe('the name of the object (other) does not match the name on the URL (upd)');
  });

  it('keeps signerName immutable (422) and dryRun leaves the object unchanged', async () => {
    const before = await c.req<Obj>('reader', 'GET', `${ctbPath}/upd`);
    const dry = await c.req<Obj>('writer', 'PUT', `${ctbPath}/upd?dryRun=All`, { body: { ...before.json, metadata: { ...before.json.metadata, labels: { dry: 'run' } } } });
    expect(dry.status).toBe(200);
    expect(dry.json.metadata['labels']).toEqual({ dry: 'run' });
    const after = await c.req<Obj>('reader', 'GET', `${ctbPath}/upd`);
    expect(after.json.metadata.resourceVersion).toBe(before.json.metadata.resourceVersion);
    expect(after.json.metadata['labels']).toEqual(before.json.metadata['labels']);
  });
});

describe('patch', () => {
  beforeAll(async () => {
    await c.req('writer', 'POST', ctbPath, { body: bundle('p', c.anchorPem) });
  });

  it('applies a merge patch', async () => {
    const res = await c.req<Obj>('writer', 'PATCH', `${ctbPath}/p`, { raw: '{"metadata":{"labels":{"m":"1"}}}', contentType: 'application/merge-patch+json' });
    expect(res.status).toBe(200);
    expect(res.json.metadata['labels']).toEqual({ m: '1' });
  });

  it('applies a JSON patch and a strategic merge patch', async () => {
    const json = await c.req<Obj>('writer', 'PATCH', `${ctbPath}/p`, {
      raw: JSON.stringify([{ op: 'add', path: '/metadata/labels/j', value: '2' }]),
      contentType: 'application/json-patch+json',
    });
    expect(json.status).toBe(200);
    expect(json.json.metadata['labels']).toEqual({ m: '1', j: '2' });
    const smp = await c.req<Obj>('writer', 'PATCH', `${ctbPath}/p`, { raw: '{"metadata":{"labels":{"m":null}}}', contentType: 'application/strategic-merge-patch+json' });
    expect(smp.status).toBe(200);
    expect(smp.json.metadata['labels']).toEqual({ j: '2' });
  });

  it('answers 422 for a failing JSON patch test and 400 for a malformed patch', async () => {
    const failing = await c.req('writer', 'PATCH', `${ctbPath}/p`, {
      raw: JSON.stringify([{ op: 'test', path: '/metadata/name', value: 'other' }]),
      contentType: 'application/json-patch+json',
    });
    expect(failing.status).toBe(422);
    const malformed = await c.req('writer', 'PATCH', `${ctbPath}/p`, { raw: '{', contentType: 'application/merge-patch+json' });
    expect(malformed.status).toBe(400);
  });

  it('takes a null strategic or JSON patch as a no-op and refuses it as a merge patch, as kube-apiserver does', async () => {
    const before = await c.req<Obj>('reader', 'GET', `${ctbPath}/p`);
    for (const contentType of ['application/strategic-merge-patch+json', 'application/json-patch+json']) {
      const res = await c.req<Obj>('writer', 'PATCH', `${ctbPath}/p`, { raw: 'null', contentType });
      expect(res.status).toBe(200);
      expect(res.json.metadata['resourceVersion']).toBe(before.json.metadata['resourceVersion']);
    }
    const merge = await c.req('writer', 'PATCH', `${ctbPath}/p`, { raw: 'null', contentType: 'application/merge-patch+json' });
    expect([merge.status, merge.json['message']]).toEqual([400, 'Invalid JSON Patch']);
    const list = await c.req('writer', 'PATCH', `${ctbPath}/p`, { raw: '[]', contentType: 'application/strategic-merge-patch+json' });
    expect([list.status, list.json['message']]).toEqual([400, 'json: cannot unmarshal array into Go value of type map[string]interface {}']);
  });

  it('answers 415 for unknown patch types, listing the apply type too', async () => {
    const other = await c.req('writer', 'PATCH', `${ctbPath}/p`, { raw: '{}', contentType: 'application/json' });
    expect(other.status).toBe(415);
    expect(other.json['message']).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    );
  });

  it('answers 409 when the patch carries a stale resourceVersion and 404 for a missing object', async () => {
    const stale = await c.req('writer', 'PATCH', `${ctbPath}/p`, { raw: '{"metadata":{"resourceVersion":"1"}}', contentType: 'application/merge-patch+json' });
    expect(stale.status).toBe(409);
    const missing = await c.req('writer', 'PATCH', `${ctbPath}/nope`, { raw: '{}', contentType: 'application/merge-patch+json' });
    expect(missing.status).toBe(404);
  });

  it('rejects force on a non-apply patch (422 PatchOptions) and invalid results (422)', async () => {
    const force = await c.req('writer', 'PATCH', `${ctbPath}/p?force=true`, { raw: '{}', contentType: 'application/merge-patch+json' });
    expect(force.status).toBe(422);
    expect(force.json['message']).toBe('PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
    const invalid = await c.req('writer', 'PATCH', `${ctbPath}/p`, { raw: '{"spec":{"trustBundle":"junk"}}', contentType: 'application/merge-patch+json' });
    expect(invalid.status).toBe(422);
  });

  it('with dryRun does not store, and Strict reports unknown fields of the patched object', async () => {
    const dry = await c.req<Obj>('writer', 'PATCH', `${ctbPath}/p?dryRun=All`, { raw: '{"metadata":{"labels":{"d":"1"}}}', contentType: 'application/merge-patch+json' });
    expect(dry.status).toBe(200);
    expect(dry.json.metadata['labels']).toEqual({ j: '2', d: '1' });
    expect((await c.req<Obj>('reader', 'GET', `${ctbPath}/p`)).json.metadata['labels']).toEqual({ j: '2' });
    const strict = await c.req('writer', 'PATCH', `${ctbPath}/p?fieldValidation=Strict`, { raw: '{"spec":{"bogus":1}}', contentType: 'application/merge-patch+json' });
    expect(strict.status).toBe(400);
    expect(strict.json['message']).toBe('strict decoding error: unknown field "spec.bogus"');
  });
});

describe('delete', () => {
  it('answers 200 with a Success Status and removes the object', async () => {
    const created = await c.req<Obj>('writer', 'POST', ctbPath, { body: bundle('del', c.anchorPem) });
    const res = await c.req('writer', 'DELETE', `${ctbPath}/del`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'del', group: 'certificates.plat.io', kind: 'clustertrustbundles', uid: created.json.metadata.uid },
    });
    expect((await c.req('reader', 'GET', `${ctbPath}/del`)).status).toBe(404);
    expect((await c.req('writer', 'DELETE', `${ctbPath}/del`)).status).toBe(404);
  });

  it('honours preconditions from the DeleteOptions body (409) and dryRun from the query', async () => {
    await c.req('writer', 'POST', ctbPath, { body: bundle('del2', c.anchorPem) });
    const pre = await c.req('writer', 'DELETE', `${ctbPath}/del2`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'not-the-uid' } } });
    expect(pre.status).toBe(409);
    expect(String(pre.json['message'])).toContain('Precondition failed: UID in precondition: not-the-uid');
    const dry = await c.req('writer', 'DELETE', `${ctbPath}/del2?dryRun=All`);
    expect(dry.status).toBe(200);
    expect((await c.req('reader', 'GET', `${ctbPath}/del2`)).status).toBe(200);
    const badPolicy = await c.req('writer', 'DELETE', `${ctbPath}/del2?propagationPolicy=Sideways`);
    expect(badPolicy.status).toBe(422);
    expect(String(badPolicy.json['message'])).toContain('DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways"');
    const ok = await c.req('writer', 'DELETE', `${ctbPath}/del2?gracePeriodSeconds=0&propagationPolicy=Background`);
    expect(ok.status).toBe(200);
  });

  it('answers 202 with a deletionTimestamp while finalizers hold the object, and deletes when they are removed', async () => {
    await c.req('writer', 'POST', ctbPath, { body: bundle('fin', c.anchorPem, undefined, { metadata: { finalizers: ['example.com/hold'] } }) });
    const res = await c.req<Obj>('writer', 'DELETE', `${ctbPath}/fin`);
    expect(res.status).toBe(202);
    expect(res.json.metadata['deletionTimestamp']).toMatch(/Z$/);
    expect(res.json.metadata['deletionGracePeriodSeconds']).toBe(0);
    const still = await c.req<Obj>('reader', 'GET', `${ctbPath}/fin`);
    expect(still.status).toBe(200);
    const addFinalizer = await c.req('writer', 'PATCH', `${ctbPath}/fin`, {
      raw: '{"metadata":{"finalizers":["example.com/hold","example.com/more"]}}',
      contentType: 'application/merge-patch+json',
    });
    expect(addFinalizer.status).toBe(422);
    const dryAgain = await c.req<Obj>('writer', 'DELETE', `${ctbPath}/fin?dryRun=All`);
    expect(dryAgain.status).toBe(202);
    expect(dryAgain.json.metadata['deletionTimestamp']).toBe(res.json.metadata['deletionTimestamp']);
    const release = await c.req('writer', 'PATCH', `${ctbPath}/fin`, { raw: '{"metadata":{"finalizers":null}}', contentType: 'application/merge-patch+json' });
    expect(release.status).toBe(200);
    expect((await c.req('reader', 'GET', `${ctbPath}/fin`)).status).toBe(404);
  });
});

describe('unsafe delete (ignoreStoreReadErrorWithClusterBreakingPotential)', () => {
  it('needs the unsafe-delete-ignore-read-errors permission and no other option', async () => {
    await c.req('writer', 'POST', ctbPath, { body: bundle('unsafe', c.anchorPem) });
    const denied = await c.req('writer', 'DELETE', `${ctbPath}/unsafe?ignoreStoreReadErrorWithClusterBreakingPotential=true`);
    expect(denied.status).toBe(403);
    expect(denied.json['message']).toBe(
      'clustertrustbundles.certificates.plat.io "unsafe" is forbidden: User "writer" cannot unsafe-delete-ignore-read-errors resource "clustertrustbundles" in API group "certificates.plat.io" at the cluster scope',
    );
    const withDryRun = await c.req('admin', 'DELETE', `${ctbPath}/unsafe?ignoreStoreReadErrorWithClusterBreakingPotential=true&dryRun=All`);
    expect(withDryRun.status).toBe(422);
    expect(withDryRun.json['message']).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Invalid value: "": can not be set together with ignoreStoreReadErrorWithClusterBreakingPotential',
    );
    const collection = await c.req('admin', 'DELETE', `${ctbPath}?ignoreStoreReadErrorWithClusterBreakingPotential=true`);
    expect(collection.status).toBe(422);
    const ok = await c.req('admin', 'DELETE', `${ctbPath}/unsafe?ignoreStoreReadErrorWithClusterBreakingPotential=true`);
    expect(ok.status).toBe(200);
  });
});

describe('deletecollection', () => {
  it('deletes what the selectors match and answers the list of deleted objects', async () => {
    for (const [name, team] of [['dc-a', 'a'], ['dc-b', 'a'], ['dc-c', 'b']]) {
      await c.req('writer', 'POST', ctbPath, { body: bundle(name!, c.anchorPem, undefined, { metadata: { labels: { team: team! } } }) });
    }
    const res = await c.req<{ kind: string; items: Obj[] }>('writer', 'DELETE', `${ctbPath}?labelSelector=team%3Da`);
    expect(res.status).toBe(200);
    expect(res.json.kind).toBe('ClusterTrustBundleList');
    expect(res.json.items.map((i) => i.metadata['name']).sort()).toEqual(['dc-a', 'dc-b']);
    expect((await c.req('reader', 'GET', `${ctbPath}/dc-a`)).status).toBe(404);
    expect((await c.req('reader', 'GET', `${ctbPath}/dc-c`)).status).toBe(200);
    const dry = await c.req<{ items: Obj[] }>('writer', 'DELETE', `${ctbPath}?fieldSelector=metadata.name%3Ddc-c&dryRun=All`);
    expect(dry.json.items).toHaveLength(1);
    expect((await c.req('reader', 'GET', `${ctbPath}/dc-c`)).status).toBe(200);
    const badField = await c.req('writer', 'DELETE', `${ctbPath}?fieldSelector=spec.trustBundle%3Dx`);
    expect(badField.status).toBe(400);
  });
});

describe('percent-encoded paths', () => {
  const name = 'example.com:encoded:x';
  const encoded = encodeURIComponent(name);

  it('serves every by-name verb on a signer-prefixed name sent encoded, as client libraries send it', async () => {
    expect(encoded).toBe('example.com%3Aencoded%3Ax');
    const created = await c.req<Obj>('attester', 'POST', ctbPath, { body: bundle(name, c.anchorPem, 'example.com/encoded') });
    expect(created.status).toBe(201);
    const got = await c.req<Obj>('reader', 'GET', `${ctbPath}/${encoded}`);
    expect(got.status).toBe(200);
    expect(got.json.metadata['name']).toBe(name);
    const put = await c.req<Obj>('attester', 'PUT', `${ctbPath}/${encoded}`, { body: { ...got.json, metadata: { ...got.json.metadata, labels: { put: 'yes' } } } });
    expect(put.status).toBe(200);
    const patched = await c.req<Obj>('attester', 'PATCH', `${ctbPath}/${encoded}`, { raw: '{"metadata":{"labels":{"patch":"yes"}}}', contentType: 'application/merge-patch+json' });
    expect(patched.status).toBe(200);
    expect(patched.json.metadata['labels']).toEqual({ put: 'yes', patch: 'yes' });
    // The authorizer sees the decoded name: writer lacks attest, and the 403 names the bundle.
    const denied = await c.req('writer', 'PATCH', `${ctbPath}/${encoded}`, { raw: '{"metadata":{"labels":{"x":"y"}}}', contentType: 'application/merge-patch+json' });
    expect(denied.status).toBe(403);
    expect(denied.json['message']).toBe(`clustertrustbundles.certificates.plat.io "${name}" is forbidden: user not permitted to attest for signerName "example.com/encoded"`);
    const deleted = await c.req('attester', 'DELETE', `${ctbPath}/${encoded}`);
    expect(deleted.status).toBe(200);
    expect(deleted.json['details']).toMatchObject({ name });
    expect((await c.req('reader', 'GET', `${ctbPath}/${encoded}`)).status).toBe(404);
  });

  it('treats an encoded slash as a separator (404 for the unknown subresource), refuses names that cannot be path segments and answers a malformed escape with 400', async () => {
    const slash = await c.req('admin', 'GET', `${ctbPath}/a%2Fb`);
    expect(slash.status).toBe(404);
    expect(slash.json['message']).toBe('the server could not find the requested resource');
    // Decoded names that cannot be path segments: Kubernetes' key function answers 400; NUL names cannot exist.
    const percent = await c.req('admin', 'GET', `${ctbPath}/a%25b`);
    expect(percent.status).toBe(400);
    expect(percent.json['message']).toBe(`Name parameter invalid: "a%b": may not contain '%'`);
    for (const method of ['GET', 'DELETE']) {
      const nul = await c.req('admin', method, `${ctbPath}/a%00`);
      expect(nul.status).toBe(404);
      expect(nul.json['message']).toBe('clustertrustbundles.certificates.plat.io "a\\x00" not found');
    }
    const bad = await c.req('admin', 'GET', `${ctbPath}/a%zz`);
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400, message: 'invalid URL escape "%zz"' });
  });
});

describe('routing', () => {
  it('answers 404 for unknown resources and 405 for unsupported methods', async () => {
    const unknown = await c.req('admin', 'GET', '/apis/certificates.plat.io/v1alpha1/widgets');
    expect(unknown.status).toBe(404);
    expect(unknown.json['message']).toBe('the server could not find the requested resource');
    const post = await c.req('admin', 'POST', `${ctbPath}/named`, { body: bundle('named', c.anchorPem) });
    expect(post.status).toBe(405);
    expect(post.json['reason']).toBe('MethodNotAllowed');
    const ns = await c.req('admin', 'GET', '/apis/certificates.plat.io/v1alpha1/namespaces/x/clustertrustbundles');
    expect(ns.status).toBe(404);
  });
});
