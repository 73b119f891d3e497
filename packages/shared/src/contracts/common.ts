import { z } from 'zod';

/** Failure envelope of every API error (docs/spec-notes.md, API conventions). */
export const errorEnvelopeSchema = z.object({
  success: z.literal(false),
  message: z.string(),
  code: z.string(),
  /** Field-level explanations of a 400, joined into one readable sentence. */
  details: z.string().optional(),
});
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

/** Success envelope around `data`. */
export function successEnvelope<T extends z.ZodType>(data: T) {
  return z.object({
    success: z.literal(true),
    data,
    message: z.string().optional(),
  });
}

/**
 * Integer id as it travels in a path segment; at most what a Postgres `integer` column holds, so
 * a larger number is a 400 rather than a database error.
 */
export const idParamSchema = z.object({
  id: z.coerce.number().int().positive().max(2_147_483_647),
});
