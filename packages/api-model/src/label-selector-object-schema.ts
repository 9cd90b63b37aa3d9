import { z } from 'zod';
import type { LabelSelectorObject, LabelSelectorObjectRequirement } from './label-selector-object.js';

/** The zod schemas of the structured label selector (`meta/v1 LabelSelector`). */

export const labelSelectorRequirementSchema: z.ZodType<LabelSelectorObjectRequirement> = z.object({
  key: z.string(),
  // Any string: validation and conversion report an unknown operator with Kubernetes' message.
  operator: z.string(),
  values: z.array(z.string()).nullable().optional(),
});

export const labelSelectorObjectSchema: z.ZodType<LabelSelectorObject> = z.object({
  matchLabels: z.record(z.string(), z.string()).nullable().optional(),
  matchExpressions: z.array(labelSelectorRequirementSchema).nullable().optional(),
});
