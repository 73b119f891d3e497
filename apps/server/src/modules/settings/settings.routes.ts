import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  botStatusSchema,
  channelTestResponseSchema,
  deliveryLogQuerySchema,
  deliveryLogResponseSchema,
  discordNotificationRequestSchema,
  discordTestRequestSchema,
  notificationPreferencesResponseSchema,
  saveSettingsRequestSchema,
  settingsResponseSchema,
  SETTINGS_MESSAGES,
  successEnvelope,
  telegramByUsernameRequestSchema,
  telegramLinkSchema,
  telegramTestAliasRequestSchema,
  telegramTestRequestSchema,
  updateNotificationPreferencesSchema,
} from '@perch/shared';
import { errorResponses, ok } from '../../lib/reply.js';
import { currentAuth, requireAuth } from '../auth/auth.plugin.js';
import { requireRecentAuthentication } from '../auth/step-up.js';
import { botStatus, startBot } from './bot.service.js';
import { testDiscord, testTelegram } from './channel-tests.service.js';
import { DuplicateTestGuard } from './duplicate-test-guard.js';
import { deliveryLog } from './delivery-log.service.js';
import { getPreferences, updatePreferences } from './notification-preferences.service.js';
import { getSettings, saveSettings } from './settings.service.js';
import type { SettingsDeps } from './settings-state.js';
import { createTelegramLink } from './telegram-link.service.js';

const errors = errorResponses(400, 401, 403, 404);
/** Tests and links reach Telegram or Discord: they can also be refused, throttled or fail. */
const upstreamErrors = {
  ...errors,
  ...errorResponses(409, 429, 502),
};
/** A 400 from validation says what was wrong: the spec's text of the field. */
const config = { useIssueMessage: true };
const tags = ['settings'];
const testAnswer = successEnvelope(channelTestResponseSchema);
/**
 * Connecting or removing a channel that receives the user's posts (a Telegram chat, a Discord
 * user) is behind the step-up (auth/step-up.ts): a stolen session alone cannot send them elsewhere.
 */
const stepUp = { preHandler: requireRecentAuthentication };
/** POST /settings names a channel: the step-up applies; the X username alone does not need it. */
const changesChannel = (body: { telegram_chat_id?: unknown; discord_user_id?: unknown }) =>
  body.telegram_chat_id !== undefined || body.discord_user_id !== undefined;
/** POST /test-telegram answers `status: 'ok'` at the top too, as the spec's client reads it. */
const aliasAnswer = testAnswer.extend({ status: z.literal('ok') });

/**
 * Settings, notification channels and their tests, one-click Telegram linking, the user's bot
 * and the delivery log. A handle's own switches are in the handles module.
 */
export const settingsRoutes: FastifyPluginAsyncZod<SettingsDeps> = async (app, options) => {
  const deps: SettingsDeps = {
    ...options,
    duplicateTests: options.duplicateTests ?? new DuplicateTestGuard(),
  };
  // Before validation: a signed-out caller gets 401 whatever the body holds.
  app.addHook('preValidation', requireAuth);

  app.get(
    '/settings',
    { schema: { tags, response: { 200: successEnvelope(settingsResponseSchema), ...errors } } },
    async (request) => ok({ settings: await getSettings(deps, currentAuth(request).user) }),
  );

  app.post(
    '/settings',
    {
      config,
      preHandler: async (request) => {
        if (changesChannel(request.body)) await requireRecentAuthentication(request);
      },
      schema: {
        tags,
        body: saveSettingsRequestSchema,
        response: { 200: successEnvelope(settingsResponseSchema), ...errors },
      },
    },
    async (request) => {
      const { settings, message } = await saveSettings(
        deps,
        currentAuth(request).user,
        request.body,
      );
      return ok({ settings }, message);
    },
  );

  app.get(
    '/settings/notifications',
    {
      schema: {
        tags,
        response: { 200: successEnvelope(notificationPreferencesResponseSchema), ...errors },
      },
    },
    async (request) =>
      ok({ preferences: await getPreferences(deps.db, currentAuth(request).user) }),
  );

  app.put(
    '/settings/notifications',
    {
      config,
      schema: {
        tags,
        body: updateNotificationPreferencesSchema,
        response: { 200: successEnvelope(notificationPreferencesResponseSchema), ...errors },
      },
    },
    async (request) => {
      const preferences = await updatePreferences(deps, currentAuth(request).user, request.body);
      return ok({ preferences }, SETTINGS_MESSAGES.preferencesSaved);
    },
  );

  app.post(
    '/settings/telegram/test',
    {
      config,
      schema: {
        tags,
        body: telegramTestRequestSchema,
        response: { 200: testAnswer, ...upstreamErrors },
      },
    },
    async (request) => {
      const message = await testTelegram(deps, currentAuth(request).user, request.body.chat_id);
      return ok({ status: 'ok' as const, channel: 'telegram' as const }, message);
    },
  );

  app.post(
    '/test-telegram',
    {
      config,
      schema: {
        tags,
        body: telegramTestAliasRequestSchema,
        response: { 200: aliasAnswer, ...upstreamErrors },
      },
    },
    async (request) => {
      const { user } = currentAuth(request);
      const message = await testTelegram(deps, user, request.body.telegram_chat_id);
      const answer = ok({ status: 'ok' as const, channel: 'telegram' as const }, message);
      return { ...answer, status: 'ok' as const };
    },
  );

  for (const path of ['/settings/discord/test', '/test-discord']) {
    app.post(
      path,
      {
        config,
        schema: {
          tags,
          body: discordTestRequestSchema,
          response: { 200: testAnswer, ...upstreamErrors },
        },
      },
      async (request) => {
        const { user } = currentAuth(request);
        const message = await testDiscord(deps, user, request.body.discord_user_id);
        return ok({ status: 'ok' as const, channel: 'discord' as const }, message);
      },
    );
  }

  /** Both Telegram link routes answer the same: a new one-click link and how to use it. */
  const telegramLinkResponse = { 200: successEnvelope(telegramLinkSchema), ...upstreamErrors };
  const answerTelegramLink = async (request: FastifyRequest) => {
    const link = await createTelegramLink(deps, currentAuth(request).user);
    return ok(link, link.instructions);
  };

  app.post(
    '/settings/telegram/link',
    { ...stepUp, schema: { tags, response: telegramLinkResponse } },
    answerTelegramLink,
  );

  app.post(
    '/notifications/telegram',
    {
      config,
      ...stepUp,
      schema: { tags, body: telegramByUsernameRequestSchema, response: telegramLinkResponse },
    },
    answerTelegramLink,
  );

  app.post(
    '/notifications/discord',
    {
      config,
      ...stepUp,
      schema: {
        tags,
        body: discordNotificationRequestSchema,
        response: { 200: successEnvelope(settingsResponseSchema), ...errors },
      },
    },
    async (request) => {
      const { settings, message } = await saveSettings(deps, currentAuth(request).user, {
        discord_user_id: request.body.discord_user_id,
      });
      return ok({ settings }, message);
    },
  );

  app.post(
    '/bot/start',
    { schema: { tags, response: { 200: successEnvelope(botStatusSchema), ...errors } } },
    async (request) => {
      const { status, message } = await startBot(deps, currentAuth(request).user);
      return ok(status, message);
    },
  );

  app.get(
    '/bot/status',
    { schema: { tags, response: { 200: successEnvelope(botStatusSchema), ...errors } } },
    async (request) => ok(await botStatus(deps.db, currentAuth(request).user)),
  );

  app.get(
    '/settings/deliveries',
    {
      config,
      schema: {
        tags,
        querystring: deliveryLogQuerySchema,
        response: { 200: successEnvelope(deliveryLogResponseSchema), ...errors },
      },
    },
    async (request) =>
      ok({
        deliveries: await deliveryLog(
          deps.db,
          currentAuth(request).user,
          request.query.channel,
          request.query.limit,
        ),
      }),
  );
};
