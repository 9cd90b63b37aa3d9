import { z } from 'zod';
import type { ApiObject } from './object-meta.js';
import type { Status } from './status.js';

/** One event of a watch stream (`meta/v1 WatchEvent`): what changed and the object after the change. */

export const WatchEventType = {
  Added: 'ADDED',
  Modified: 'MODIFIED',
  Deleted: 'DELETED',
  Bookmark: 'BOOKMARK',
  Error: 'ERROR',
} as const;
export type WatchEventType = (typeof WatchEventType)[keyof typeof WatchEventType];

export const watchEventTypeSchema = z.enum(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/** A watch event with any object; ERROR events carry a Status. */
export const watchEventSchema = z.object({
  type: watchEventTypeSchema,
  object: z.record(z.string(), z.unknown()),
});

/** A watch event whose object is checked by `objectSchema` (ERROR events still carry a Status). */
export function watchEventSchemaOf<T extends z.ZodType>(objectSchema: T) {
  return z.union([
    z.object({ type: z.enum(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']), object: objectSchema }),
    z.object({ type: z.literal('ERROR'), object: z.record(z.string(), z.unknown()) }),
  ]);
}

export type WatchEvent<T = ApiObject> =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: T }
  | { type: 'ERROR'; object: Status };

/** The ERROR event a watch ends with, e.g. 410 Gone for a compacted resourceVersion. */
export function watchErrorEvent(status: Status): WatchEvent<never> {
  return { type: 'ERROR', object: status };
}

/**
 * A BOOKMARK event: only the kind, apiVersion and resourceVersion of the watched type, telling a
 * client how far the stream has progressed without sending an object.
 */
export function watchBookmarkEvent(
  apiVersion: string,
  kind: string,
  resourceVersion: string,
  annotations?: Record<string, string>,
): WatchEvent<ApiObject> {
  return {
    type: 'BOOKMARK',
    object: { apiVersion, kind, metadata: annotations ? { resourceVersion, annotations } : { resourceVersion } },
  };
}
