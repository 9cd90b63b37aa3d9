import { z } from 'zod';
import type { Status, StatusCause, StatusDetails } from './status.js';

/** Wire schemas of Status, for decoding server answers (see status.ts for the types). */
export const statusCauseSchema: z.ZodType<StatusCause> = z.object({
  reason: z.string().optional(),
  message: z.string().optional(),
  field: z.string().optional(),
});

export const statusDetailsSchema: z.ZodType<StatusDetails> = z.object({
  name: z.string().optional(),
  group: z.string().optional(),
  kind: z.string().optional(),
  uid: z.string().optional(),
  causes: z.array(statusCauseSchema).optional(),
  retryAfterSeconds: z.number().int().optional(),
});

export const statusSchema = z.object({
  kind: z.literal('Status'),
  apiVersion: z.literal('v1'),
  metadata: z
    .object({
      resourceVersion: z.string().optional(),
      continue: z.string().optional(),
      selfLink: z.string().optional(),
      remainingItemCount: z.number().int().optional(),
    })
    .default({}),
  status: z.enum(['Success', 'Failure']).optional(),
  message: z.string().optional(),
  reason: z.string().optional(),
  details: statusDetailsSchema.optional(),
  code: z.number().int().optional(),
}) satisfies z.ZodType<Status>;
