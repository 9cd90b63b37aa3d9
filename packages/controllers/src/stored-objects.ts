import { isStatusError, type ApiObject } from '@plat/api-model';
import { recordUpdate } from '@plat/patch';
import type { Storage } from '@plat/storage';

/**
 * Writes of the server's own controllers, straight to storage as the REST layer would make them:
 * each write is recorded in managedFields as an Update of the controller's field manager, so that
 * `kubectl get -o yaml --show-managed-fields` shows who set what, as in Kubernetes.
 */

function withManagedFields(obj: ApiObject, before: ApiObject | undefined, manager: string): ApiObject {
  const { object } = recordUpdate({
    before: before as Record<string, unknown> | undefined,
    after: obj as Record<string, unknown>,
    manager,
    apiVersion: obj.apiVersion ?? '',
    now: new Date(),
  });
  return object as ApiObject;
}

/** Creates `obj` at `key` as `manager`; undefined when it exists already (someone else was first). */
export async function createStored(storage: Storage, key: string, obj: ApiObject, manager: string): Promise<ApiObject | undefined> {
  try {
    return await storage.create(key, withManagedFields(structuredClone(obj), undefined, manager));
  } catch (err) {
    if (isStatusError(err, 'AlreadyExists')) return undefined;
    throw err;
  }
}

/**
 * Updates the object at `key` as `manager`: `change` gets a copy of the current object and answers
 * the next one, or undefined to leave it as it is. Retried on conflicts (guaranteedUpdate).
 */
export async function updateStored(
  storage: Storage,
  key: string,
  change: (current: ApiObject) => ApiObject | undefined,
  manager: string,
): Promise<ApiObject> {
  return storage.guaranteedUpdate(key, (current) => {
    const next = change(structuredClone(current));
    return next ? withManagedFields(next, current, manager) : current;
  });
}

/** The object at `key`, or undefined. */
export async function getStored(storage: Storage, key: string): Promise<ApiObject | undefined> {
  try {
    return await storage.get(key);
  } catch (err) {
    if (isStatusError(err, 'NotFound')) return undefined;
    throw err;
  }
}
