import { z } from 'zod';

/**
 * Webhook endpoints: HTTPS addresses a user adds to receive posts and alerts as signed JSON
 * requests (docs/webhook-payload.schema.json for the generic body). The server checks an
 * address fully when it is saved (apps/server/src/notify/webhook/webhook-url.ts) and again, by
 * its resolved IP addresses, every time it connects.
 */

/** The body formats a webhook can send: Perch's documented JSON, or a chat service's own. */
export const WEBHOOK_PRESETS = ['generic', 'slack', 'discord'] as const;
export type WebhookPreset = (typeof WEBHOOK_PRESETS)[number];

/** Longest endpoint URL, in characters. */
export const WEBHOOK_URL_MAX_LENGTH = 2000;
/** Longest endpoint name, in characters. */
export const WEBHOOK_NAME_MAX_LENGTH = 100;

export const WEBHOOK_MESSAGES = {
  urlRequired: 'Enter the address of the webhook.',
  urlInvalid: 'This is not a valid web address.',
  urlTooLong: `The address is longer than ${WEBHOOK_URL_MAX_LENGTH.toLocaleString('en-US')} characters.`,
  httpsRequired: 'The address must start with https://.',
  httpLoopbackOnly:
    'Plain http:// is only allowed to this machine (localhost), and only when the server allows it.',
  credentialsInUrl:
    'Remove the user name and password from the address: the request is signed instead.',
  addressNotAllowed: 'This address is on a private or local network, which webhooks may not reach.',
  nameRequired: 'Give the webhook a name.',
  nameTooLong: `The name is longer than ${WEBHOOK_NAME_MAX_LENGTH} characters.`,
  presetInvalid: `The format must be one of: ${WEBHOOK_PRESETS.join(', ')}.`,
} as const;

/**
 * A webhook endpoint as a user enters it (create and edit). The URL is checked here for what
 * the browser can know; the server's check (scheme, loopback switch, address ranges) is the one
 * that decides.
 */
export const webhookEndpointInputSchema = z.object({
  name: z
    .string()
    .trim()
    .min(1, WEBHOOK_MESSAGES.nameRequired)
    .max(WEBHOOK_NAME_MAX_LENGTH, WEBHOOK_MESSAGES.nameTooLong),
  url: z
    .string()
    .trim()
    .min(1, WEBHOOK_MESSAGES.urlRequired)
    .max(WEBHOOK_URL_MAX_LENGTH, WEBHOOK_MESSAGES.urlTooLong),
  preset: z.enum(WEBHOOK_PRESETS, { error: WEBHOOK_MESSAGES.presetInvalid }),
});
export type WebhookEndpointInput = z.infer<typeof webhookEndpointInputSchema>;

/** A saved endpoint as the API shows it: never its secret, which is shown once. */
export const webhookEndpointSchema = webhookEndpointInputSchema.extend({
  id: z.number().int(),
  created_at: z.string(),
  /** Why delivery stopped for good (the endpoint refused the requests), or null while it works. */
  stopped_reason: z.string().nullable(),
});
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

/** Creating an endpoint or rotating its secret: the only answer that holds the secret. */
export const webhookSecretSchema = z.object({
  endpoint: webhookEndpointSchema,
  secret: z.string(),
});
export type WebhookSecret = z.infer<typeof webhookSecretSchema>;

/** Most endpoints a user keeps. */
export const WEBHOOKS_PER_USER = 10;

/** PATCH /webhooks/{id}: any of name, url and preset (a new address restarts a stopped one). */
export const webhookEndpointUpdateSchema = webhookEndpointInputSchema
  .partial()
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'Change at least one of name, url or preset.',
  });
export type WebhookEndpointUpdate = z.input<typeof webhookEndpointUpdateSchema>;

/** GET /webhooks. */
export const webhookEndpointListSchema = z.object({
  endpoints: z.array(webhookEndpointSchema),
  limit: z.number().int(),
});
export type WebhookEndpointList = z.infer<typeof webhookEndpointListSchema>;

/** PATCH /webhooks/{id}. */
export const webhookEndpointResponseSchema = z.object({ endpoint: webhookEndpointSchema });
/** DELETE /webhooks/{id} (and DELETE /alerts/{id}). */
export const deletedResponseSchema = z.object({ deleted: z.literal(true) });

/** POST /webhooks/{id}/test: one signed test request, and how the endpoint answered. */
export const webhookTestResultSchema = z.object({
  ok: z.boolean(),
  /** The HTTP status the endpoint answered with; null when it did not answer. */
  status: z.number().int().nullable(),
  duration_ms: z.number(),
  /** What happened, for a person: "Answered 204 in 85 ms." or why it failed. */
  message: z.string(),
});
export type WebhookTestResult = z.infer<typeof webhookTestResultSchema>;

export const WEBHOOK_API_MESSAGES = {
  notFound: 'Webhook not found.',
  limitReached: `Webhook limit reached (${WEBHOOKS_PER_USER}).`,
  created: 'Webhook added. Copy its secret now: it is shown only once.',
  rotated: 'New secret made. Copy it now: the old one no longer signs requests.',
  deleted: 'Webhook deleted.',
  addWebhookFirst: 'Add a webhook in Settings first.',
} as const;
