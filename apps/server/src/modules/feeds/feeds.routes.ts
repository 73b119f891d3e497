import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { FEED_MAX_AGE_SECONDS, FEED_MESSAGES, feedsSchema, successEnvelope } from '@perch/shared';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { errorResponses, ok } from '../../lib/reply.js';
import { requestOrigin } from '../../lib/request-origin.js';
import { currentAuth, requireAuth } from '../auth/auth.plugin.js';
import {
  createFeedsDeps,
  getFeeds,
  isNotModified,
  regenerateFeeds,
  renderFeed,
} from './feeds.service.js';

const errors = errorResponses(400, 401, 403, 404, 409);
const tags = ['feeds'];

/**
 * RSS and JSON feeds of the followed handles at a secret per-user address, and the Settings
 * calls that show and replace that address.
 */
export const feedsRoutes: FastifyPluginAsyncZod<{ config: Config; db: Db }> = async (
  app,
  { config, db },
) => {
  const deps = createFeedsDeps(config, db);
  // PUBLIC_URL, or the request's own origin when its host is allowed (400 otherwise).
  const originOf = (request: { protocol: string; host: string }) => requestOrigin(request, config);

  app.get(
    '/settings/feeds',
    {
      preValidation: requireAuth,
      schema: {
        tags,
        description:
          "The RSS and JSON feed addresses of the user's handles; the secret in them is made on " +
          'first use.',
        response: { 200: successEnvelope(feedsSchema), ...errors },
      },
    },
    async (request) => ok(await getFeeds(deps, currentAuth(request).user, originOf(request))),
  );

  app.post(
    '/settings/feeds/regenerate',
    {
      preValidation: requireAuth,
      schema: {
        tags,
        description: 'A new secret for the feed addresses: the old ones stop working at once.',
        response: { 200: successEnvelope(feedsSchema), ...errors },
      },
    },
    async (request) => {
      // Before the secret changes: a request refused for its host replaces nothing.
      const origin = originOf(request);
      return ok(
        await regenerateFeeds(deps, currentAuth(request).user, origin),
        FEED_MESSAGES.regenerated,
      );
    },
  );

  // Feed readers have no session: the secret in the path is the credential. The route skips
  // the session and CSRF cookie handling (config.sessionless), and answers every miss with the
  // same 404.
  app.get(
    '/feeds/:token/:file',
    {
      config: { sessionless: true },
      schema: {
        tags,
        description:
          '`<handle>.rss` (RSS 2.0) or `<handle>.json` (JSON Feed 1.1): the latest ' +
          'tweets of a followed handle. No session; ETag and Last-Modified answer 304.',
        params: z.object({ token: z.string(), file: z.string() }),
        response: errorResponses(400, 404),
      },
    },
    async (request, typedReply) => {
      // The body is XML or JSON Feed text, not an envelope: sent as is, outside the schemas.
      const reply = typedReply as unknown as FastifyReply;
      const feed = await renderFeed(
        deps,
        request.params.token,
        request.params.file,
        originOf(request),
      );
      reply.headers({
        etag: feed.etag,
        'last-modified': feed.lastModified,
        // The address is a secret: no shared cache keeps it.
        'cache-control': `private, max-age=${FEED_MAX_AGE_SECONDS}`,
      });
      const ifNoneMatch = request.headers['if-none-match'];
      const ifModifiedSince = request.headers['if-modified-since'];
      if (isNotModified(feed, ifNoneMatch, ifModifiedSince)) return reply.code(304).send();
      return reply.type(feed.contentType).send(feed.body);
    },
  );
};
