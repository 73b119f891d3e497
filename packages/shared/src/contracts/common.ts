import { z } from 'zod';

/** Failure envelope of every API error (ARCHITECTURE.md, API conventions). */
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

/** Integer id as it travels in a path segment. */
export const idParamSchema = z.object({ id: z.coerce.number().int().positive() });
