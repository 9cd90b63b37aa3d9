// Server-side apply over HTTPS: PATCH with Content-Type application/apply-patch+yaml.
import { MemoryStorage } from '@plat/storage';
import { stringify } from 'yaml';
import { bundle, ctbPath, startCluster, type TestCluster, type UserName } from '../../cluster.js';

let c: TestCluster;
beforeAll(async () => {
  c = await startCluster();
});
afterAll(async () => {
  await c.close();
});

type Entry = { manager: string; operation: string; apiVersion: string; time?: string; fieldsType: string; fieldsV1: unknown };
type Obj = {
  metadata: { name: string; resourceVersion: string; labels?: Record<string, string>; managedFields?: Entry[]; [k: string]: unknown };
  spec: Record<string, unknown>;
  [k: string]: unknown;
};

const applyType = 'application/apply-patch+yaml';

// The body as kubectl writes it: YAML 1.1 (go-yaml v2), which quotes `yes` and the like, as kube-apiserver reads 1.1.
function applyReq(name: string, config: unknown, query: string, user: UserName = 'writer') {
  const raw = typeof config === 'string' ? config : stringify(config, { version: '1.1' });
  return c.req<Obj>(user, 'PATCH', `${ctbPath}/${name}${query ? `?${query}` : ''}`, { raw, contentType: applyType });
}

function entries(o: Obj): Array<Pick<Entry, 'manager' | 'operation' | 'fieldsV1'>> {
  return (o.metadata.managedFields ?? []).map(({ manager, operation, fieldsV1 }) => ({ manager, operation, fieldsV1 }));
}

describe('server-side apply', () => {
  it('reads YAML 1.1 as sigs.k8s.io/yaml does: an unquoted yes is a boolean, so a label of yes is refused, and `.` stays a key', async () => {
    const yesLabel = `apiVersion: certificates.plat.io/v1alpha1\nkind: ClusterTrustBundle\nmetadata:\n  name: ssa-yes\n  labels:\n    beta: yes\nspec:\n  trustBundle: ${JSON.stringify(c.anchorPem)}\n`;
    const refused = await applyReq('ssa-yes', yesLabel, 'fieldManager=alpha');
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.json)).toMatch(/bool/);
    const dotted = await applyReq('ssa-yes', yesLabel.replace('beta: yes', '".": "x"'), 'fieldManager=alpha&dryRun=All');
    expect(dotted.status).toBe(422);
    expect(JSON.stringify(dotted.json)).toContain('metadata.labels');
  });

  it('creates a missing object (201) with one Apply entry for the manager', async () => {
    const res = await applyReq('ssa-create', bundle('ssa-create', c.anchorPem, undefined, { metadata: { labels: { team: 'a' } } }), 'fieldManager=alpha');
    expect(res.status).toBe(201);
    expect(res.json.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.json.spec['trustBundle']).toBe(c.anchorPem);
    expect(res.json.metadata.managedFields).toEqual([
      {
        manager: 'alpha',
        operation: 'Apply',
        apiVersion: 'certificates.plat.io/v1alpha1',
        time: expect.stringMatching(/Z$/),
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { 'f:team': {} } }, 'f:spec': { 'f:trustBundle': {} } },
      },
    ]);
    const got = await c.req<Obj>('reader', 'GET', `${ctbPath}/ssa-create`);
    expect(got.json.metadata.resourceVersion).toBe(res.json.metadata.resourceVersion);
  });

  it('accepts a JSON body (JSON is YAML)', async () => {
    const res = await applyReq('ssa-json', JSON.stringify(bundle('ssa-json', c.anchorPem)), 'fieldManager=alpha');
    expect(res.status).toBe(201);
  });

  it('re-applying the same configuration is a no-op: same resourceVersion, same entry time', async () => {
    const config = bundle('ssa-same', c.anchorPem);
    const first = await applyReq('ssa-same', config, 'fieldManager=alpha');
    expect(first.status).toBe(201);
    const again = await applyReq('ssa-same', config, 'fieldManager=alpha');
    expect(again.status).toBe(200);
    expect(again.json.metadata.resourceVersion).toBe(first.json.metadata.resourceVersion);
    expect(again.json.metadata.managedFields).toEqual(first.json.metadata.managedFields);
  });

  it('removes a field the manager stops applying when nobody else owns it', async () => {
    await applyReq('ssa-prune', bundle('ssa-prune', c.anchorPem, undefined, { metadata: { labels: { a: '1', b: '2' } } }), 'fieldManager=alpha');
    const res = await applyReq('ssa-prune', bundle('ssa-prune', c.anchorPem, undefined, { metadata: { labels: { a: '1' } } }), 'fieldManager=alpha');
    expect(res.status).toBe(200);
    expect(res.json.metadata.labels).toEqual({ a: '1' });
    expect(entries(res.json)).toEqual([
      { manager: 'alpha', operation: 'Apply', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:a': {} } }, 'f:spec': { 'f:trustBundle': {} } } },
    ]);
  });

  describe('two managers', () => {
    beforeAll(async () => {
      const res = await applyReq('ssa-two', bundle('ssa-two', c.anchorPem, undefined, { metadata: { labels: { owner: 'alpha' } } }), 'fieldManager=alpha');
      expect(res.status).toBe(201);
    });

    it('share a field they apply with the same value', async () => {
      const res = await applyReq('ssa-two', bundle('ssa-two', c.anchorPem, undefined, { metadata: { labels: { beta: 'yes' } } }), 'fieldManager=beta');
      expect(res.status).toBe(200);
      expect(res.json.metadata.labels).toEqual({ owner: 'alpha', beta: 'yes' });
      expect(entries(res.json).map((e) => e.manager)).toEqual(['alpha', 'beta']);
      expect(entries(res.json)[1]!.fieldsV1).toEqual({ 'f:metadata': { 'f:labels': { 'f:beta': {} } }, 'f:spec': { 'f:trustBundle': {} } });
    });

    it('conflict (409) on fields the other owns with another value, one cause per field naming the manager', async () => {
      const res = await applyReq(
        'ssa-two',
        bundle('ssa-two', c.anchorPem2, undefined, { metadata: { labels: { owner: 'beta', beta: 'yes' } } }),
        'fieldManager=beta',
      );
      expect(res.status).toBe(409);
      expect(res.json).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        reason: 'Conflict',
        code: 409,
        message: 'Apply failed with 2 conflicts: conflicts with "alpha":\n- .metadata.labels.owner\n- .spec.trustBundle',
        details: {
          causes: [
            { reason: 'FieldManagerConflict', message: 'conflict with "alpha"', field: '.metadata.labels.owner' },
            { reason: 'FieldManagerConflict', message: 'conflict with "alpha"', field: '.spec.trustBundle' },
          ],
        },
      });
      const got = await c.req<Obj>('reader', 'GET', `${ctbPath}/ssa-two`);
      expect(got.json.spec['trustBundle']).toBe(c.anchorPem);
    });

    it('force=true takes the conflicting fields from the other manager', async () => {
      const before = await c.req<Obj>('reader', 'GET', `${ctbPath}/ssa-two`);
      const res = await applyReq('ssa-two', bundle('ssa-two', c.anchorPem2, undefined, { metadata: { labels: { beta: 'yes' } } }), 'fieldManager=beta&force=true');
      expect(res.status).toBe(200);
      expect(res.json.spec['trustBundle']).toBe(c.anchorPem2);
      expect(res.json.metadata.resourceVersion).not.toBe(before.json.metadata.resourceVersion);
      expect(entries(res.json)).toEqual([
        { manager: 'alpha', operation: 'Apply', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:owner': {} } } } },
        { manager: 'beta', operation: 'Apply', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:beta': {} } }, 'f:spec': { 'f:trustBundle': {} } } },
      ]);
    });
  });

  it('names an Update manager with its apiVersion in a conflict (object made by create)', async () => {
    const made = await c.req('writer', 'POST', `${ctbPath}?fieldManager=clientctl-patch`, { body: bundle('ssa-made', c.anchorPem) });
    expect(made.status).toBe(201);
    const res = await applyReq('ssa-made', bundle('ssa-made', c.anchorPem2), 'fieldManager=alpha');
    expect(res.status).toBe(409);
    expect(res.json['message']).toBe(
      'Apply failed with 1 conflict: conflict with "clientctl-patch" using certificates.plat.io/v1alpha1: .spec.trustBundle',
    );
    expect((res.json['details'] as { causes: unknown[] }).causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "clientctl-patch" using certificates.plat.io/v1alpha1', field: '.spec.trustBundle' },
    ]);
  });

  it('a merge patch after an apply adds an Update entry and takes the changed field', async () => {
    await applyReq('ssa-merge', bundle('ssa-merge', c.anchorPem, undefined, { metadata: { labels: { a: '1' } } }), 'fieldManager=alpha');
    const res = await c.req<Obj>('writer', 'PATCH', `${ctbPath}/ssa-merge?fieldManager=patcher`, {
      raw: JSON.stringify({ metadata: { labels: { a: '2', b: '3' } } }),
      contentType: 'application/merge-patch+json',
    });
    expect(res.status).toBe(200);
    expect(entries(res.json)).toEqual([
      { manager: 'alpha', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:trustBundle': {} } } },
      { manager: 'patcher', operation: 'Update', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:a': {}, 'f:b': {} } } } },
    ]);
    expect(res.json.metadata.managedFields![1]!.apiVersion).toBe('certificates.plat.io/v1alpha1');
    // Applying label a again with the old value now conflicts with the Update manager.
    const again = await applyReq('ssa-merge', bundle('ssa-merge', c.anchorPem, undefined, { metadata: { labels: { a: '1' } } }), 'fieldManager=alpha');
    expect(again.status).toBe(409);
    expect(again.json['message']).toBe('Apply failed with 1 conflict: conflict with "patcher" using certificates.plat.io/v1alpha1: .metadata.labels.a');
  });

  it('managedFields: [] in a merge patch resets tracking; the next apply assigns the rest to before-first-apply', async () => {
    await applyReq('ssa-reset', bundle('ssa-reset', c.anchorPem, undefined, { metadata: { labels: { a: '1' } } }), 'fieldManager=alpha');
    const reset = await c.req<Obj>('writer', 'PATCH', `${ctbPath}/ssa-reset?fieldManager=patcher`, {
      raw: JSON.stringify({ metadata: { managedFields: [] } }),
      contentType: 'application/merge-patch+json',
    });
    expect(reset.status).toBe(200);
    expect(reset.json.metadata.managedFields).toBeUndefined();
    const res = await applyReq('ssa-reset', bundle('ssa-reset', c.anchorPem, undefined, { metadata: { labels: { b: '2' } } }), 'fieldManager=alpha');
    expect(res.status).toBe(200);
    expect(res.json.metadata.labels).toEqual({ a: '1', b: '2' });
    expect(entries(res.json)).toEqual([
      { manager: 'alpha', operation: 'Apply', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:b': {} } }, 'f:spec': { 'f:trustBundle': {} } } },
      // The trust bundle, applied with the same value, is shared.
      {
        manager: 'before-first-apply',
        operation: 'Update',
        fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } }, 'f:spec': { 'f:trustBundle': {} } },
      },
    ]);
  });

  it('a PUT by another manager takes the fields it changes from the applier', async () => {
    const applied = await applyReq('ssa-put', bundle('ssa-put', c.anchorPem, undefined, { metadata: { labels: { a: '1' } } }), 'fieldManager=alpha');
    const body = { ...applied.json, spec: { trustBundle: c.anchorPem2 } };
    const put = await c.req<Obj>('writer', 'PUT', `${ctbPath}/ssa-put?fieldManager=editor`, { body });
    expect(put.status).toBe(200);
    expect(entries(put.json)).toEqual([
      { manager: 'alpha', operation: 'Apply', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:a': {} } } } },
      { manager: 'editor', operation: 'Update', fieldsV1: { 'f:spec': { 'f:trustBundle': {} } } },
    ]);
  });

  it('a create that carries managedFields starts from them; the fields it sets go to its manager, as kube-apiserver', async () => {
    const sent: Entry[] = [
      {
        manager: 'alpha',
        operation: 'Apply',
        apiVersion: 'certificates.plat.io/v1alpha1',
        time: '2026-01-02T03:04:05Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:note': {} } }, 'f:spec': { 'f:trustBundle': {} } },
      },
      {
        manager: 'gone',
        operation: 'Update',
        apiVersion: 'certificates.plat.io/v1alpha1',
        time: '2026-01-02T03:04:05Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:trustBundle': {} } },
      },
    ];
    const made = await c.req<Obj>('writer', 'POST', `${ctbPath}?fieldManager=restorer`, {
      body: bundle('ssa-restore', c.anchorPem, undefined, { metadata: { labels: { r: '1' }, managedFields: sent } }),
    });
    expect(made.status).toBe(201);
    // The create compares with the empty object: every field it sets is added, and taken from the
    // entries sent; alpha keeps what the object does not set, `gone` is left with nothing.
    expect(entries(made.json)).toEqual([
      { manager: 'alpha', operation: 'Apply', fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:note': {} } } } },
      { manager: 'restorer', operation: 'Update', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:r': {} } }, 'f:spec': { 'f:trustBundle': {} } } },
    ]);
  });

  it('dryRun=All answers as a real apply and stores nothing', async () => {
    const created = await applyReq('ssa-dry', bundle('ssa-dry', c.anchorPem), 'fieldManager=alpha&dryRun=All');
    expect(created.status).toBe(201);
    expect(created.json.metadata.managedFields![0]!.manager).toBe('alpha');
    expect((await c.req('reader', 'GET', `${ctbPath}/ssa-dry`)).status).toBe(404);
    await applyReq('ssa-dry', bundle('ssa-dry', c.anchorPem), 'fieldManager=alpha');
    const changed = await applyReq('ssa-dry', bundle('ssa-dry', c.anchorPem2), 'fieldManager=alpha&dryRun=All');
    expect(changed.status).toBe(200);
    expect(changed.json.spec['trustBundle']).toBe(c.anchorPem2);
    const got = await c.req<Obj>('reader', 'GET', `${ctbPath}/ssa-dry`);
    expect(got.json.spec['trustBundle']).toBe(c.anchorPem);
  });

  it('answers 422 Invalid for an invalid bundle, on create and on update', async () => {
    const bad = await applyReq('ssa-invalid', bundle('ssa-invalid', 'not a pem'), 'fieldManager=alpha');
    expect(bad.status).toBe(422);
    expect(bad.json).toMatchObject({ reason: 'Invalid', details: { name: 'ssa-invalid', kind: 'ClusterTrustBundle' } });
    expect((await c.req('reader', 'GET', `${ctbPath}/ssa-invalid`)).status).toBe(404);
    await applyReq('ssa-invalid', bundle('ssa-invalid', c.anchorPem), 'fieldManager=alpha');
    const badUpdate = await applyReq('ssa-invalid', bundle('ssa-invalid', 'junk'), 'fieldManager=alpha');
    expect(badUpdate.status).toBe(422);
    expect(badUpdate.json['message']).toMatch(/^ClusterTrustBundle\.certificates\.plat\.io "ssa-invalid" is invalid: spec\.trustBundle/);
  });

  it('answers 422 PatchOptions Invalid without fieldManager, as kube-apiserver', async () => {
    const res = await applyReq('ssa-nomanager', bundle('ssa-nomanager', c.anchorPem), '');
    expect(res.status).toBe(422);
    expect(res.json['message']).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    const ua = await c.req('writer', 'PATCH', `${ctbPath}/ssa-nomanager`, {
      raw: stringify(bundle('ssa-nomanager', c.anchorPem)),
      contentType: applyType,
      headers: { 'user-agent': 'kubectl/v1.32.0' },
    });
    expect(ua.status).toBe(422);
  });

  it('takes any force value but 0 and false as true (Kubernetes parameter codec) and refuses an overlong fieldManager (422)', async () => {
    await applyReq('ssa-opts', { ...bundle('ssa-opts', c.anchorPem), metadata: { name: 'ssa-opts', labels: { team: 'a' } } }, 'fieldManager=a');
    const conflict = await applyReq('ssa-opts', { ...bundle('ssa-opts', c.anchorPem), metadata: { name: 'ssa-opts', labels: { team: 'b' } } }, 'fieldManager=b&force=false');
    expect(conflict.status).toBe(409);
    const force = await applyReq('ssa-opts', { ...bundle('ssa-opts', c.anchorPem), metadata: { name: 'ssa-opts', labels: { team: 'b' } } }, 'fieldManager=b&force=maybe');
    expect(force.status).toBe(200);
    const long = await applyReq('ssa-opts', bundle('ssa-opts', c.anchorPem), `fieldManager=${'m'.repeat(129)}`);
    expect(long.status).toBe(422);
    expect(long.json['message']).toMatch(/^PatchOptions\.meta\.k8s\.io "" is invalid: fieldManager: Too long/);
  });

  it('answers 400 for malformed YAML, a non-object, another kind and a name other than the URL', async () => {
    const malformed = await applyReq('ssa-bad', 'a: [1', 'fieldManager=a');
    expect(malformed.status).toBe(400);
    expect(malformed.json['message']).toMatch(/^error decoding YAML: /);
    const list = await applyReq('ssa-bad', '- 1\n- 2\n', 'fieldManager=a');
    expect(list.status).toBe(400);
    expect(list.json['message']).toMatch(/^error decoding YAML: /);
    const kind = await applyReq('ssa-bad', { ...bundle('ssa-bad', c.anchorPem), kind: 'ConfigMap' }, 'fieldManager=a');
    expect(kind.status).toBe(400);
    expect(kind.json['message']).toBe('invalid object type: certificates.plat.io/v1alpha1, Kind=ConfigMap');
    const named = await applyReq('ssa-bad', bundle('other-name', c.anchorPem), 'fieldManager=a');
    expect(named.status).toBe(400);
    expect(named.json['message']).toBe('the name of the object (other-name) does not match the name on the URL (ssa-bad)');
    const mf = await applyReq('ssa-bad', bundle('ssa-bad', c.anchorPem, undefined, { metadata: { managedFields: [] } }), 'fieldManager=a');
    expect(mf.status).toBe(400);
    expect(mf.json['message']).toBe('metadata.managedFields must be nil');
    expect((await c.req('reader', 'GET', `${ctbPath}/ssa-bad`)).status).toBe(404);
  });

  it("refuses a field the schema does not declare with kube-apiserver's text, as 400 (kube: 500; bad input never gets a 5xx)", async () => {
    const res = await applyReq('ssa-unknown', { ...bundle('ssa-unknown', c.anchorPem), spec: { trustBundle: c.anchorPem, bogus: 1 } }, 'fieldManager=a');
    expect(res.status).toBe(400);
    expect(res.json['reason']).toBe('BadRequest');
    expect(res.json['message']).toBe(
      'failed to create typed patch object (/ssa-unknown; certificates.plat.io/v1alpha1, Kind=ClusterTrustBundle): .spec.bogus: field not declared in schema',
    );
  });

  it('repeated keys: kept silently with Ignore, a warning by default, 400 with Strict', async () => {
    const yamlText = `apiVersion: certificates.plat.io/v1alpha1\nkind: ClusterTrustBundle\nmetadata:\n  name: ssa-dup\n  labels:\n    a: "1"\n    a: "2"\nspec:\n  trustBundle: ${JSON.stringify(c.anchorPem)}\n`;
    const strict = await applyReq('ssa-dup', yamlText, 'fieldManager=a&fieldValidation=Strict');
    expect(strict.status).toBe(400);
    expect(strict.json['message']).toBe('error strict decoding YAML: yaml: unmarshal errors:\n  line 7: key "a" already set in map');
    const warn = await applyReq('ssa-dup', yamlText, 'fieldManager=a');
    expect(warn.status).toBe(201);
    expect(String(warn.headers['warning'])).toMatch(/^299 - /);
    expect(warn.json.metadata.labels).toEqual({ a: '2' });
    const jsonText = `{"apiVersion":"certificates.plat.io/v1alpha1","kind":"ClusterTrustBundle","metadata":{"name":"ssa-dup","labels":{"b":"1","b":"2"}},"spec":{"trustBundle":${JSON.stringify(c.anchorPem)}}}`;
    const strictJson = await applyReq('ssa-dup', jsonText, 'fieldManager=a&fieldValidation=Strict');
    expect(strictJson.status).toBe(400);
    expect(strictJson.json['message']).toBe('error strict decoding YAML: yaml: unmarshal errors:\n  line 1: key "b" already set in map');
    const ignored = await applyReq('ssa-dup', jsonText, 'fieldManager=a&fieldValidation=Ignore');
    expect(ignored.status).toBe(200);
    expect(ignored.headers['warning']).toBeUndefined();
    expect(ignored.json.metadata.labels).toEqual({ b: '2' });
  });

  it('a stale resourceVersion in the configuration is a 409 precondition failure', async () => {
    const made = await applyReq('ssa-rv', bundle('ssa-rv', c.anchorPem), 'fieldManager=alpha');
    await applyReq('ssa-rv', bundle('ssa-rv', c.anchorPem, undefined, { metadata: { labels: { x: 'y' } } }), 'fieldManager=alpha');
    const stale = await applyReq(
      'ssa-rv',
      bundle('ssa-rv', c.anchorPem, undefined, { metadata: { resourceVersion: made.json.metadata.resourceVersion } }),
      'fieldManager=alpha',
    );
    expect(stale.status).toBe(409);
    expect(stale.json['message']).toMatch(/the object has been modified/);
  });

  it('runs admission: a signer-bound bundle needs attest on the signer', async () => {
    const config = bundle('example.com:ssa:one', c.anchorPem, 'example.com/ssa');
    const denied = await applyReq('example.com:ssa:one', config, 'fieldManager=alpha', 'writer');
    expect(denied.status).toBe(403);
    expect((await c.req('reader', 'GET', `${ctbPath}/example.com:ssa:one`)).status).toBe(404);
    const allowed = await applyReq('example.com:ssa:one', config, 'fieldManager=alpha', 'attester');
    expect(allowed.status).toBe(201);
  });

  it('is listed as a patch type in OpenAPI v2 and v3', async () => {
    const v2 = await c.req<{ paths: Record<string, { patch?: { consumes: string[] } }> }>('reader', 'GET', '/openapi/v2');
    expect(v2.json.paths[`${ctbPath}/{name}`]!.patch!.consumes).toContain(applyType);
    const v3 = await c.req<{ paths: Record<string, { patch?: { requestBody: { content: Record<string, unknown> } } }> }>(
      'reader',
      'GET',
      '/openapi/v3/apis/certificates.plat.io/v1alpha1',
    );
    expect(Object.keys(v3.json.paths[`${ctbPath}/{name}`]!.patch!.requestBody.content)).toContain(applyType);
  });
});

describe('server-side apply racing to create', () => {
  /** Creates take 150 ms: two appliers of a missing object both find it missing, one loses the create. */
  class SlowCreateStorage extends MemoryStorage {
    override async create(...a: Parameters<MemoryStorage['create']>): ReturnType<MemoryStorage['create']> {
      await new Promise((r) => setTimeout(r, 150));
      return super.create(...a);
    }
  }
  let slow: TestCluster;
  beforeAll(async () => {
    slow = await startCluster({ storage: new SlowCreateStorage({}) });
  });
  afterAll(async () => {
    await slow.close();
  });

  it('one creates (201), the other applies again as an update (200); both own their fields', async () => {
    const send = (manager: string, labels: Record<string, string>) =>
      slow.req<Obj>('writer', 'PATCH', `${ctbPath}/ssa-race?fieldManager=${manager}`, {
        raw: JSON.stringify(bundle('ssa-race', slow.anchorPem, undefined, { metadata: { labels } })),
        contentType: applyType,
      });
    const [a, b] = await Promise.all([send('alpha', { a: '1' }), send('beta', { b: '2' })]);
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    const got = await slow.req<Obj>('reader', 'GET', `${ctbPath}/ssa-race`);
    expect(got.json.metadata.labels).toEqual({ a: '1', b: '2' });
    expect(entries(got.json).map((e) => e.manager).sort()).toEqual(['alpha', 'beta']);
  });
});
