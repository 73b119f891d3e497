import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  analyticsQuerySchema,
  availabilitySchema,
  blockResponseSchema,
  completeAnalyticsSchema,
  completeQuerySchema,
  contentTypesSchema,
  engagementDistributionSchema,
  engagementSchema,
  enhancedContentSchema,
  growthSchema,
  hashtagsQuerySchema,
  hashtagsSchema,
  interactionBreakdownSchema,
  languagesSchema,
  mediaStatsSchema,
  postingPatternsSchema,
  successEnvelope,
  summarySchema,
  threadPerformanceSchema,
  timeseriesMetricSchema,
  timeseriesQuerySchema,
  timeseriesSchema,
  topTweetsQuerySchema,
  topTweetsSchema,
  velocitySchema,
  viralSchema,
  wordsSchema,
  type AnalyticsBlocks,
} from '@perch/shared';
import type { Cluster } from '../../cluster/cluster.js';
import type { Db } from '../../db/index.js';
import { badRequest } from '../../lib/errors.js';
import { errorResponses, ok } from '../../lib/reply.js';
import { currentAuth, requireAuth } from '../auth/auth.plugin.js';
import { INVALID_HANDLE } from '../handles/handles.service.js';
import {
  AnalyticsService,
  analyticsHandle,
  type AnalyticsResult,
  type PollRequester,
} from './analytics.service.js';

const errors = errorResponses(400, 401, 403, 404);
/** The raw path value; blank and malformed names get the spec's 400 in the handler. */
const handleParamSchema = z.object({ handle: z.string() });
const tags = ['analytics'];
const config = { useIssueMessage: true };

/** The options of a GET on one handle's analytics: its query string and the `data` it answers. */
function handleRoute<Q extends z.ZodType, D extends z.ZodType>(querystring: Q, data: D) {
  return {
    config,
    schema: {
      tags,
      params: handleParamSchema,
      querystring,
      response: { 200: successEnvelope(data), ...errors },
    },
  };
}

/** The block endpoints whose payload is one cached block as is. */
const BLOCK_ROUTES = {
  summary: ['summary', summarySchema],
  content_breakdown: ['contentTypes', contentTypesSchema],
  engagement: ['engagement', engagementSchema],
  viral: ['viral', viralSchema],
  'enhanced-content': ['enhancedContent', enhancedContentSchema],
  'engagement-distribution': ['engagementDistribution', engagementDistributionSchema],
  'interaction-breakdown': ['interactionBreakdown', interactionBreakdownSchema],
  velocity: ['velocity', velocitySchema],
  'thread-performance': ['threadPerformance', threadPerformanceSchema],
  languages: ['languages', languagesSchema],
  'posting-patterns': ['postingPatterns', postingPatternsSchema],
  'media-stats': ['mediaStats', mediaStatsSchema],
  growth: ['growth', growthSchema],
  words: ['words', wordsSchema],
} as const satisfies Record<string, readonly [keyof AnalyticsBlocks, unknown]>;

/** Every analytics path, for the 400 on a missing handle. */
const PATHS = [
  ...Object.keys(BLOCK_ROUTES),
  'top_tweets',
  'hashtags',
  'timeseries',
  'complete',
  'availability',
];

/**
 * Sends an analytics result: 304 when the client's ETag still matches, else the envelope
 * with the ETag, and the 'being collected' message while the handle collects.
 */
function send<T>(request: FastifyRequest, reply: FastifyReply, result: AnalyticsResult<T>) {
  reply.header('etag', result.etag).header('cache-control', 'private, no-cache');
  const presented = request.headers['if-none-match'];
  if (presented && presented.split(',').some((tag) => tag.trim() === result.etag)) {
    return reply.code(304).send();
  }
  return ok(result.data, result.message);
}

/** Analytics per handle (docs/analytics.md): one path per block, complete, refresh. */
export const analyticsRoutes: FastifyPluginAsyncZod<{
  db: Db;
  collector: PollRequester | undefined;
  /** Scale-out: shares the refresh gap between the API nodes. */
  cluster?: Cluster;
}> = async (app, { db, collector, cluster }) => {
  const service = new AnalyticsService(
    db,
    collector,
    Date.now,
    cluster?.shared ? cluster : undefined,
  );
  app.addHook('preHandler', requireAuth);

  /** The handle a request's path names, as this user may read it. */
  const handleOf = (request: FastifyRequest & { params: { handle: string } }) =>
    analyticsHandle(db, currentAuth(request).user, request.params.handle);

  for (const [path, [key, schema]] of Object.entries(BLOCK_ROUTES)) {
    app.get(
      `/analytics/${path}/:handle`,
      handleRoute(analyticsQuerySchema, blockResponseSchema(schema)),
      async (request, reply) =>
        send(request, reply, await service.block(await handleOf(request), request.query, key)),
    );
  }

  app.get(
    '/analytics/top_tweets/:handle',
    handleRoute(topTweetsQuerySchema, blockResponseSchema(topTweetsSchema)),
    async (request, reply) =>
      send(request, reply, await service.topTweets(await handleOf(request), request.query)),
  );

  app.get(
    '/analytics/hashtags/:handle',
    handleRoute(hashtagsQuerySchema, blockResponseSchema(hashtagsSchema)),
    async (request, reply) =>
      send(request, reply, await service.hashtags(await handleOf(request), request.query)),
  );

  app.get(
    '/analytics/timeseries/:handle',
    handleRoute(
      timeseriesQuerySchema,
      z.union([blockResponseSchema(timeseriesSchema), blockResponseSchema(timeseriesMetricSchema)]),
    ),
    async (request, reply) => {
      const { metric, ...query } = request.query;
      const result = await service.block(await handleOf(request), query, 'timeSeries');
      if (metric === 'all') return send(request, reply, result);
      const { series, ...meta } = result.data;
      return send(request, reply, {
        ...result,
        etag: `${result.etag.slice(0, -1)}-${metric}"`,
        data: {
          ...meta,
          metric,
          series: series.map((point) => ({ date: point.date, value: point[metric] })),
        },
      });
    },
  );

  app.get(
    '/analytics/complete/:handle',
    handleRoute(completeQuerySchema, completeAnalyticsSchema),
    async (request, reply) =>
      send(request, reply, await service.complete(await handleOf(request), request.query)),
  );

  app.get(
    '/analytics/availability/:handle',
    {
      config,
      schema: {
        tags,
        params: handleParamSchema,
        response: { 200: successEnvelope(availabilitySchema), ...errors },
      },
    },
    async (request, reply) => send(request, reply, service.availability(await handleOf(request))),
  );

  app.post(
    '/analytics/refresh/:handle',
    {
      config,
      schema: {
        tags,
        params: handleParamSchema,
        querystring: completeQuerySchema,
        response: {
          200: successEnvelope(completeAnalyticsSchema),
          ...errors,
          ...errorResponses(429),
        },
      },
    },
    async (request) => {
      const result = await service.refresh(await handleOf(request), request.query);
      return ok(result.data, result.message);
    },
  );

  // A path without its handle (`/analytics/summary`, `/analytics/summary/`): the spec's 400.
  for (const path of [...PATHS, 'refresh']) {
    app.route({
      method: path === 'refresh' ? 'POST' : 'GET',
      url: `/analytics/${path}`,
      schema: { hide: true },
      handler: () => {
        throw badRequest(INVALID_HANDLE);
      },
    });
  }
};
