import { errorEnvelopeSchema } from '@perch/shared';

/** The success envelope as a route returns it; the route's response schema shapes the JSON. */
export interface SuccessReply<T> {
  success: true;
  data: T;
  message?: string;
}

/**
 * The success envelope around `data`, with the message shown to the person when there is one
 * (docs/spec-notes.md, API conventions).
 */
export function ok<T>(data: T, message?: string): SuccessReply<T> {
  return message === undefined ? { success: true, data } : { success: true, data, message };
}

/** The HTTP statuses our routes answer with the failure envelope. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 502 | 503;

/**
 * The response-schema entries of a route's failures: each status given answers with the
 * failure envelope. Spread it next to the success entry:
 * `response: { 200: successEnvelope(schema), ...errorResponses(400, 401) }`.
 */
export function errorResponses<const S extends ErrorStatus>(
  ...statuses: S[]
): Record<S, typeof errorEnvelopeSchema> {
  return Object.fromEntries(statuses.map((status) => [status, errorEnvelopeSchema])) as Record<
    S,
    typeof errorEnvelopeSchema
  >;
}
