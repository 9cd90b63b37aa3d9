import { isStatusError, type ApiObject } from '@plat/api-model';
import { customResourceDefinitions, type CustomResourceDefinition } from '@plat/registry';
import { DynamicResources, type ApiServer } from '@plat/server';
import { MemoryStorage } from '@plat/storage';
import { loopbackServer } from '../test/loopback-server.js';
import { CustomResourceDefinitionController } from './crd-controller.js';
import { startControllers } from './start-controllers.js';
import { RbacPolicyStore } from '@plat/auth';

const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const gadgets = '/apis/example.com/v1/gadgets';

function crd(plural: string, kind: string, group = 'example.com'): ApiObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Cluster',
      names: { plural, kind },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
}

async function eventually(check: () => Promise<void>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

const conditionsOf = async (server: ApiServer, name: string) =>
  Object.fromEntries((((await server.loopback.get(`${crds}/${name}`)) as CustomResourceDefinition).status?.conditions ?? []).map((c) => [c.type, [c.status, c.reason]]));

describe('CustomResourceDefinitionController', () => {
  let storage: MemoryStorage;
  let server: ApiServer;
  let controller: CustomResourceDefinitionController;
  const dynamic = new DynamicResources();
  beforeEach(async () => {
    storage = new MemoryStorage();
    server = loopbackServer(storage, dynamic);
    controller = new CustomResourceDefinitionController(storage, server.loopback, {
      serve: (name, obj) => (obj ? dynamic.set(name, customResourceDefinitions(obj as CustomResourceDefinition)) : dynamic.delete(name)),
      retryAfterMs: 50,
    });
    await controller.start();
  });
  afterEach(async () => {
    await controller.stop();
    await server.close();
    await storage.close();
  });

  it('accepts the names, establishes the CRD and serves its resource; a name another CRD of the group took is refused', async () => {
    await server.loopback.create(crds, crd('gadgets', 'Gadget'));
    await eventually(async () => expect(await conditionsOf(server, 'gadgets.example.com')).toEqual({ NamesAccepted: ['True', 'NoConflicts'], Established: ['True', 'InitialNamesAccepted'] }));
    const stored = (await server.loopback.get(`${crds}/gadgets.example.com`)) as CustomResourceDefinition;
    expect(stored.status?.acceptedNames).toEqual({ plural: 'gadgets', kind: 'Gadget', singular: 'gadget', listKind: 'GadgetList' });
    const created = await server.loopback.create(gadgets, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g1' }, anything: { goes: 1 } });
    expect(created).toMatchObject({ kind: 'Gadget', anything: { goes: 1 } });

    // Another CRD of the group with the same kind (so the same defaulted singular): NamesAccepted False, never Established nor served.
    await server.loopback.create(crds, crd('others', 'Gadget'));
    await eventually(async () => expect(await conditionsOf(server, 'others.example.com')).toEqual({ NamesAccepted: ['False', 'SingularConflict'] }));
    expect(dynamic.has('others.example.com')).toBe(false);
  });

  it('deletes the custom resources of a deleted CRD, then the CRD, and stops serving it', async () => {
    await server.loopback.create(crds, crd('gadgets', 'Gadget'));
    await eventually(async () => expect(dynamic.has('gadgets.example.com')).toBe(true));
    await eventually(async () => expect((await conditionsOf(server, 'gadgets.example.com'))['Established']).toEqual(['True', 'InitialNamesAccepted']));
    for (const name of ['a', 'b']) await server.loopback.create(gadgets, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name } });
    await server.loopback.delete(`${crds}/gadgets.example.com`);
    await eventually(async () => {
      let err: unknown;
      await server.loopback.get(`${crds}/gadgets.example.com`).catch((e: unknown) => (err = e));
      expect(isStatusError(err, 'NotFound')).toBe(true);
    });
    expect(await storage.list('/example.com/gadgets/')).toMatchObject({ items: [] });
    await eventually(async () => expect(dynamic.has('gadgets.example.com')).toBe(false));
    expect(await server.loopback.request({ method: 'GET', path: gadgets })).toMatchObject({ status: 404 });
  });

  it('has the namespace controller delete the custom resources of a deleted namespace (startControllers’ runtimeResources)', async () => {
    const controllers = await startControllers({
      storage,
      client: server.loopback,
      rbacPolicy: new RbacPolicyStore(),
      resources: [],
      bootstrap: false,
      runtimeResources: () => dynamic.all(),
    });
    try {
      await server.loopback.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-x' } });
      await server.loopback.create(crds, { ...crd('tools', 'Tool'), spec: { ...(crd('tools', 'Tool')['spec'] as object), scope: 'Namespaced' } });
      await eventually(async () => expect(dynamic.has('tools.example.com')).toBe(true));
      await server.loopback.create('/apis/example.com/v1/namespaces/team-x/tools', { apiVersion: 'example.com/v1', kind: 'Tool', metadata: { name: 't1' } });
      await server.loopback.delete('/api/v1/namespaces/team-x');
      await eventually(async () => expect(await storage.list('//namespaces/')).toMatchObject({ items: [] }));
      expect(await storage.list('/example.com/tools/')).toMatchObject({ items: [] });
    } finally {
      await controllers.stop();
    }
  });
});
