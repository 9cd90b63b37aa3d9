import type { ApiObject } from '@plat/api-model';
import { DynamicResources } from '@plat/server';
import { customResourceDefinitionResource, customResourceDefinitions, namespaceResource, setCondition, type CustomResourceDefinition } from '../../../src/index.js';
import { startCluster, type TestCluster } from '../../cluster.js';

const crdsPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const widgets = '/apis/stable.example.com/v1/namespaces/default/widgets';

/** The CRD of Kubernetes' walkthrough (custom-resource-definitions.md), as `Widget`, with a status subresource. */
function widgetCrd(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget', shortNames: ['wd'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  required: ['size'],
                  properties: {
                    size: { type: 'string', enum: ['small', 'large'] },
                    replicas: { type: 'integer', minimum: 1 },
                    port: { 'x-kubernetes-int-or-string': true },
                    extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  },
                },
                status: { type: 'object', properties: { ready: { type: 'boolean' } } },
              },
            },
          },
        },
      ],
      ...extra,
    },
  };
}

const widget = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'stable.example.com/v1', kind: 'Widget', metadata: { name }, spec });

// What the CRD controller of @plat/controllers does, done here by the test over HTTPS: status
// NamesAccepted and Established through `status`, and the resource served through DynamicResources.
async function establish(c: TestCluster, dynamic: DynamicResources, name: string): Promise<CustomResourceDefinition> {
  const current = (await c.req('admin', 'GET', `${crdsPath}/${name}`)).json as CustomResourceDefinition;
  current.status = { ...current.status, acceptedNames: current.spec?.names };
  setCondition(current, { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
  setCondition(current, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
  const res = await c.req('admin', 'PUT', `${crdsPath}/${name}/status`, { body: current });
  expect(res.status).toBe(200);
  dynamic.set(name, customResourceDefinitions(res.json as CustomResourceDefinition));
  return res.json as CustomResourceDefinition;
}

describe('CustomResourceDefinitions and their custom resources over HTTPS', () => {
  let c: TestCluster;
  const dynamic = new DynamicResources();
  beforeAll(async () => {
    c = await startCluster({ resources: [namespaceResource(), customResourceDefinitionResource()], dynamicResources: dynamic });
    expect((await c.req('admin', 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } } })).status).toBe(201);
  });
  afterAll(async () => {
    await c.close();
  });

  it('refuses an invalid CRD with Kubernetes’ field errors (apiextensions validation.go)', async () => {
    const res = await c.req('admin', 'POST', crdsPath, {
      body: {
        ...widgetCrd({ group: 'nodot', conversion: { strategy: 'Webhook' }, scope: 'Everywhere' }),
        metadata: { name: 'wrong.name' },
      },
    });
    expect(res.status).toBe(422);
    const causes = (res.json as { details: { causes: Array<{ field: string; message: string }> } }).details.causes;
    expect(causes).toEqual(
      expect.arrayContaining([
        { reason: 'FieldValueInvalid', field: 'metadata.name', message: 'Invalid value: "wrong.name": must be spec.names.plural+"."+spec.group' },
        { reason: 'FieldValueInvalid', field: 'spec.group', message: 'Invalid value: "nodot": should be a domain with at least one dot' },
        { reason: 'FieldValueNotSupported', field: 'spec.scope', message: 'Unsupported value: "Everywhere": supported values: "Cluster", "Namespaced"' },
        { reason: 'FieldValueNotSupported', field: 'spec.conversion.strategy', message: 'Unsupported value: "Webhook": supported values: "None"' },
      ]),
    );
    const noStorage = widgetCrd();
    (noStorage['spec'] as { versions: Array<Record<string, unknown>> }).versions[0]!['storage'] = false;
    const r2 = await c.req('admin', 'POST', crdsPath, { body: noStorage });
    expect(r2.status).toBe(422);
    // Kubernetes prints the Go value of the whole list there; plat leaves the value out.
    expect((r2.json as { message: string }).message).toBe(
      'CustomResourceDefinition.apiextensions.k8s.io "widgets.stable.example.com" is invalid: spec.versions: Invalid value: must have exactly one version marked as storage version',
    );
  });

  it('creates a CRD with defaults and storedVersions; its resource is not served before it is Established', async () => {
    const res = await c.req('admin', 'POST', crdsPath, { body: widgetCrd() });
    expect(res.status).toBe(201);
    const crd = res.json as CustomResourceDefinition;
    expect(crd.spec?.names).toEqual({ plural: 'widgets', kind: 'Widget', shortNames: ['wd'], singular: 'widget', listKind: 'WidgetList' });
    expect(crd.spec?.conversion).toEqual({ strategy: 'None' });
    expect(crd.status).toEqual({ storedVersions: ['v1'] });
    expect(crd.metadata?.generation).toBe(1);
    // Read under plat's group name, the same object.
    const plat = await c.req('admin', 'GET', '/apis/apiextensions.plat.io/v1/customresourcedefinitions/widgets.stable.example.com');
    expect(plat.json).toMatchObject({ apiVersion: 'apiextensions.plat.io/v1', metadata: { uid: crd.metadata?.uid } });
    expect((await c.req('admin', 'GET', widgets)).status).toBe(404);
  });

  it('serves the resource once Established: discovery, OpenAPI, create, get, list with selectors', async () => {
    await establish(c, dynamic, 'widgets.stable.example.com');
    const discovery = await c.req('admin', 'GET', '/apis/stable.example.com/v1');
    expect(discovery.json).toMatchObject({ groupVersion: 'stable.example.com/v1', resources: [{ name: 'widgets', namespaced: true, kind: 'Widget', shortNames: ['wd'] }, { name: 'widgets/status' }] });
    const groups = await c.req('admin', 'GET', '/apis');
    expect(JSON.stringify(groups.json)).toContain('"stable.example.com"');
    const v3 = await c.req('admin', 'GET', '/openapi/v3/apis/stable.example.com/v1');
    expect(v3.status).toBe(200);
    expect((v3.json as { components: { schemas: Record<string, unknown> } }).components.schemas['com.example.stable.v1.Widget']).toBeDefined();
    // kubectl reads v2 in gnostic's protobuf form: the custom kind's schema encodes too.
    const v2 = await c.req('admin', 'GET', '/openapi/v2', { headers: { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } });
    expect(v2.status).toBe(200);
    expect(v2.text).toContain('com.example.stable.v1.Widget');

    const created = await c.req('admin', 'POST', widgets, { body: widget('w1', { size: 'small', replicas: 2, port: 'http', extra: { anything: [1] } }) });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ apiVersion: 'stable.example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default', generation: 1 } });
    expect((created.json as { spec: unknown }).spec).toEqual({ size: 'small', replicas: 2, port: 'http', extra: { anything: [1] } });
    await c.req('admin', 'POST', widgets, { body: { ...widget('w2', { size: 'large' }), metadata: { name: 'w2', labels: { tier: 'x' } } } });
    const byLabel = await c.req('admin', 'GET', `${widgets}?labelSelector=tier%3Dx`);
    expect((byLabel.json as { items: ApiObject[] }).items.map((i) => i.metadata?.name)).toEqual(['w2']);
    const byName = await c.req('admin', 'GET', `/apis/stable.example.com/v1/widgets?fieldSelector=metadata.name%3Dw1`);
    expect(byName.json).toMatchObject({ kind: 'WidgetList', items: [{ metadata: { name: 'w1' } }] });
    const table = await c.req('admin', 'GET', `${widgets}/w1`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(table.json).toMatchObject({ columnDefinitions: [{ name: 'Name' }, { name: 'Replicas', type: 'integer' }], rows: [{ cells: ['w1', 2] }] });
    // Stored under Kubernetes' key of a custom resource.
    expect((await c.storage.get('/stable.example.com/widgets/default/w1')).metadata?.name).toBe('w1');
  });

  it('validates against the schema with kube’s 422 causes, and prunes unknown fields (Strict refuses them)', async () => {
    const bad = await c.req('admin', 'POST', widgets, { body: widget('bad', { size: 'medium', replicas: 'two', port: 1.5 }) });
    expect(bad.status).toBe(422);
    expect((bad.json as { details: { causes: unknown[] } }).details.causes).toEqual([
      { reason: 'FieldValueNotSupported', field: 'spec.size', message: 'Unsupported value: "medium": supported values: "small", "large"' },
      { reason: 'FieldValueInvalid', field: 'spec.replicas', message: 'Invalid value: "two": spec.replicas in body must be of type integer: "string"' },
      { reason: 'FieldValueInvalid', field: 'spec.port', message: 'Invalid value: 1.5: spec.port in body must be of type integer,string: "number"' },
    ]);
    const missing = await c.req('admin', 'POST', widgets, { body: widget('bad', { replicas: 0 }) });
    expect((missing.json as { message: string }).message).toBe(
      'Widget.stable.example.com "bad" is invalid: [spec.size: Required value, spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1]',
    );
    const pruned = await c.req('admin', 'POST', widgets, { body: widget('pruned', { size: 'small', bogus: true }) });
    expect(pruned.status).toBe(201);
    expect((pruned.json as { spec: unknown }).spec).toEqual({ size: 'small' });
    const strict = await c.req('admin', 'POST', `${widgets}?fieldValidation=Strict`, { body: widget('strict', { size: 'small', bogus: true }) });
    expect(strict.status).toBe(400);
    expect((strict.json as { message: string }).message).toContain('strict decoding error: unknown field "spec.bogus"');
  });

  it('patches with merge and JSON patch, refuses strategic merge (415), and keeps status to its subresource', async () => {
    const merge = await c.req('admin', 'PATCH', `${widgets}/w1`, { raw: '{"spec":{"replicas":3},"status":{"ready":true}}', contentType: 'application/merge-patch+json' });
    expect(merge.status).toBe(200);
    expect(merge.json).toMatchObject({ spec: { replicas: 3 }, metadata: { generation: 2 } });
    expect((merge.json as Record<string, unknown>)['status']).toBeUndefined();
    const json = await c.req('admin', 'PATCH', `${widgets}/w1`, { raw: '[{"op":"replace","path":"/spec/size","value":"large"}]', contentType: 'application/json-patch+json' });
    expect(json.json).toMatchObject({ spec: { size: 'large' } });
    const smp = await c.req('admin', 'PATCH', `${widgets}/w1`, { raw: '{"spec":{"replicas":4}}', contentType: 'application/strategic-merge-patch+json' });
    expect(smp.status).toBe(415);
    expect((smp.json as { message: string }).message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
    // Server-side apply: the deduced type of a kind without a patch schema (as Kubernetes' for custom resources).
    const applied = await c.req('admin', 'PATCH', `${widgets}/applied?fieldManager=tool`, {
      raw: 'apiVersion: stable.example.com/v1\nkind: Widget\nmetadata:\n  name: applied\nspec:\n  size: small\n',
      contentType: 'application/apply-patch+yaml',
    });
    expect(applied.status).toBe(201);
    expect(applied.json).toMatchObject({ spec: { size: 'small' }, metadata: { managedFields: [{ manager: 'tool', operation: 'Apply' }] } });
    const current = (await c.req('admin', 'GET', `${widgets}/w1`)).json as Record<string, unknown>;
    const status = await c.req('admin', 'PUT', `${widgets}/w1/status`, { body: { ...current, spec: { size: 'small' }, status: { ready: true } } });
    expect(status.status).toBe(200);
    expect(status.json).toMatchObject({ spec: { size: 'large' }, status: { ready: true }, metadata: { generation: 3 } });
  });

  it('stops serving when the CRD is deleted, after its custom resources are deleted', async () => {
    const del = await c.req('admin', 'DELETE', `${crdsPath}/widgets.stable.example.com`);
    // The CRD stays, Terminating with the cleanup finalizer, until its custom resources are gone.
    expect(del.status).toBe(202);
    expect(del.json).toMatchObject({ metadata: { finalizers: ['customresourcecleanup.apiextensions.k8s.io'] } });
    const conditions = (del.json as CustomResourceDefinition).status?.conditions ?? [];
    expect(conditions.find((x) => x.type === 'Terminating')).toMatchObject({ status: 'True', reason: 'InstanceDeletionPending' });
    // Served as Terminating (as the CRD controller serves it): no new objects.
    dynamic.set('widgets.stable.example.com', customResourceDefinitions(del.json as CustomResourceDefinition));
    const refused = await c.req('admin', 'POST', widgets, { body: widget('late', { size: 'small' }) });
    expect([refused.status, (refused.json as { message: string }).message]).toEqual([405, 'create not allowed while custom resource definition is terminating']);
    const list = (await c.req('admin', 'GET', widgets)).json as { items: ApiObject[] };
    for (const item of list.items) expect((await c.req('admin', 'DELETE', `${widgets}/${item.metadata?.name}`)).status).toBe(200);
    const crd = (await c.req('admin', 'GET', `${crdsPath}/widgets.stable.example.com`)).json as ApiObject;
    const finalized = await c.req('admin', 'PUT', `${crdsPath}/widgets.stable.example.com`, { body: { ...crd, metadata: { ...crd.metadata, finalizers: [] } } });
    expect(finalized.status).toBe(200);
    expect((await c.req('admin', 'GET', `${crdsPath}/widgets.stable.example.com`)).status).toBe(404);
    dynamic.delete('widgets.stable.example.com');
    expect((await c.req('admin', 'GET', widgets)).status).toBe(404);
    expect((await c.req('admin', 'GET', '/apis/stable.example.com/v1')).status).toBe(404);
    expect(JSON.stringify((await c.req('admin', 'GET', '/openapi/v3')).json)).not.toContain('stable.example.com');
  });
});
