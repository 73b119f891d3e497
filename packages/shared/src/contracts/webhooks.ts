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
  id: z.string(),
  createdAt: z.string(),
});
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

/** Creating an endpoint or rotating its secret: the only answer that holds the secret. */
export const webhookSecretSchema = z.object({
  endpoint: webhookEndpointSchema,
  secret: z.string(),
});
export type WebhookSecret = z.infer<typeof webhookSecretSchema>;
