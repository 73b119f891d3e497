import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  WEBHOOK_API_MESSAGES,
  idParamSchema,
  successEnvelope,
  webhookEndpointInputSchema,
  webhookEndpointListSchema,
  deletedResponseSchema,
  webhookEndpointResponseSchema,
  webhookEndpointUpdateSchema,
  webhookSecretSchema,
  webhookTestResultSchema,
} from '@perch/shared';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { errorResponses, ok } from '../../lib/reply.js';
import type { WebhookChannelClient } from '../../notify/channels.js';
import { currentAuth, requireAuth } from '../auth/auth.plugin.js';
import {
  createWebhook,
  createWebhooksDeps,
  deleteWebhook,
  listWebhooks,
  rotateWebhookSecret,
  testWebhook,
  updateWebhook,
} from './webhooks.service.js';

const errors = errorResponses(400, 401, 403, 404);
const tags = ['webhooks'];
/** A 400 from validation says what was wrong: the contract's text for the field. */
const config = { useIssueMessage: true };

export interface WebhooksRoutesOptions {
  config: Config;
  db: Db;
  /** The delivery worker's webhook client, so the Test button sends as delivery does. */
  webhook?: WebhookChannelClient;
}

/**
 * /webhooks: the signed-in user's endpoints. Their secrets are shown only when made or rotated;
 * another user's endpoint is not found, never forbidden.
 */
export const webhooksRoutes: FastifyPluginAsyncZod<WebhooksRoutesOptions> = async (
  app,
  { config: appConfig, db, webhook },
) => {
  const deps = createWebhooksDeps(appConfig, db, webhook);
  // Before validation: a signed-out caller gets 401 whatever the body holds.
  app.addHook('preValidation', requireAuth);

  app.get(
    '/webhooks',
    {
      schema: {
        tags,
        description: 'The endpoints (never their secrets), with the most a user may keep.',
        response: { 200: successEnvelope(webhookEndpointListSchema), ...errors },
      },
    },
    async (request) => ok(await listWebhooks(deps, currentAuth(request).user)),
  );

  app.post(
    '/webhooks',
    {
      config,
      schema: {
        tags,
        description:
          'A new endpoint once its address passed the check; the answer holds its signing ' +
          'secret, shown this once.',
        body: webhookEndpointInputSchema,
        response: { 201: successEnvelope(webhookSecretSchema), ...errors, ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const created = await createWebhook(deps, currentAuth(request).user, request.body);
      reply.code(201);
      return ok(created, WEBHOOK_API_MESSAGES.created);
    },
  );

  app.patch(
    '/webhooks/:id',
    {
      config,
      schema: {
        tags,
        description: 'Renames an endpoint or changes its address or format.',
        params: idParamSchema,
        body: webhookEndpointUpdateSchema,
        response: {
          200: successEnvelope(webhookEndpointResponseSchema),
          ...errors,
        },
      },
    },
    async (request) =>
      ok({
        endpoint: await updateWebhook(
          deps,
          currentAuth(request).user,
          request.params.id,
          request.body,
        ),
      }),
  );

  app.delete(
    '/webhooks/:id',
    {
      schema: {
        tags,
        description: 'Deletes an endpoint; what still waited for it is cancelled.',
        params: idParamSchema,
        response: { 200: successEnvelope(deletedResponseSchema), ...errors },
      },
    },
    async (request) => {
      await deleteWebhook(deps, currentAuth(request).user, request.params.id);
      return ok({ deleted: true as const }, WEBHOOK_API_MESSAGES.deleted);
    },
  );

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      schema: {
        tags,
        description: 'A new signing secret, shown this once; the old one signs nothing more.',
        params: idParamSchema,
        response: { 200: successEnvelope(webhookSecretSchema), ...errors },
      },
    },
    async (request) =>
      ok(
        await rotateWebhookSecret(deps, currentAuth(request).user, request.params.id),
        WEBHOOK_API_MESSAGES.rotated,
      ),
  );

  app.post(
    '/webhooks/:id/test',
    {
      schema: {
        tags,
        description:
          'Sends one signed test request; 200 with how the endpoint answered, whether or not ' +
          'it accepted it.',
        params: idParamSchema,
        response: { 200: successEnvelope(webhookTestResultSchema), ...errors },
      },
    },
    async (request) => ok(await testWebhook(deps, currentAuth(request).user, request.params.id)),
  );
};
