import fs from 'node:fs';
import path from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic, { type FastifyStaticOptions } from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import {
  jsonSchemaTransform,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Collector } from './collector/collector.js';
import type { Config } from './config.js';
import type { Db } from './db/index.js';
import { createNotifyChannels, type NotifyChannels } from './notify/channels.js';
import { adminRoutes } from './modules/admin/admin.routes.js';
import { alertsRoutes } from './modules/alerts/alerts.routes.js';
import { xWebAccountsRoutes } from './modules/x-web/x-web-accounts.routes.js';
import { xWebOperationsRoutes } from './modules/x-web/x-web-operations.routes.js';
import type { Cluster } from './cluster/cluster.js';
import { analyticsRoutes } from './modules/analytics/analytics.routes.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { eventsRoutes } from './modules/events/events.routes.js';
import { feedsRoutes } from './modules/feeds/feeds.routes.js';
import { handleNotificationsRoutes } from './modules/handles/handle-notifications.routes.js';
import { handlesRoutes } from './modules/handles/handles.routes.js';
import { tweetsRoutes } from './modules/tweets/tweets.routes.js';
import { notificationFiltersRoutes } from './modules/notification-filters/notification-filters.routes.js';
import { refusalEventsPlugin } from './modules/security/refusal-events.js';
import { securityRoutes } from './modules/security/security.routes.js';
import { twoFactorRoutes } from './modules/security/two-factor.routes.js';
import type { DuplicateTestGuard } from './modules/settings/duplicate-test-guard.js';
import { settingsRoutes } from './modules/settings/settings.routes.js';
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.js';
import { systemRoutes } from './modules/system/system.routes.js';
import { xAccountRoutes } from './modules/x-account/x-account.routes.js';
import type { XUsageMeter } from './modules/x-usage/x-usage.service.js';
import { authPlugin } from './modules/auth/auth.plugin.js';
import { errorHandlerPlugin, routerErrorEnvelope } from './plugins/error-handler.js';
import { createLogger, type LoggerOptions } from './lib/logger.js';
import { fastifyTrustProxy } from './lib/trust-proxy.js';
import type { Metrics } from './lib/metrics.js';
import type { SessionCache } from './modules/auth/session-cache.js';
import { metricsPlugin } from './modules/system/metrics.plugin.js';
import { SERVER_ROOT, VERSION } from './lib/server-package.js';
import { responseSerializerCompiler } from './plugins/response-serializer.js';
import { apiSecurityHeaders, securityHeadersPlugin } from './plugins/security-headers.js';

/** The built SPA: apps/web/dist. */
export const WEB_DIST = path.join(SERVER_ROOT, '../web/dist');
export { VERSION };

const BODY_LIMIT = 1024 * 1024;

export interface AppOptions {
  config: Config;
  db: Db;
  /**
   * Runs collection; main.ts starts and stops it. Without one, handles can be added and read but
   * nothing is collected (tools that only need the API).
   */
  collector?: Collector;
  /**
   * The Telegram and Discord clients (main.ts shares them with the delivery worker) and a way to
   * wake that worker. Without them the clients are made from the config and nothing delivers.
   * `duplicateTests` folds repeated channel tests (default: within DUPLICATE_TEST_WINDOW_MS;
   * tests shorten the window).
   */
  notify?: {
    channels: NotifyChannels;
    wakeWorker?: () => void;
    duplicateTests?: DuplicateTestGuard;
  };
  /**
   * The X API cost meter the source records into (main.ts makes it for the x-api source). Without
   * one, GET /admin/x-usage reads the same table through a meter made from the config.
   */
  xUsage?: XUsageMeter;
  /** Overrides the logger's options (default: LOG_LEVEL and LOG_FORMAT); false logs nothing. */
  logger?: false | LoggerOptions;
  /** Folder of the built SPA (defaults to apps/web/dist). */
  webDist?: string;
  /** Keep-alive interval of the live-events stream (default 15 s; tests shorten it). */
  eventsKeepAliveMs?: number;
  /** Prometheus metrics: served at GET /metrics, fed by every request (main.ts makes them). */
  metrics?: Metrics;
  /**
   * Resolved sessions kept for a few seconds, dropped on every node at once when a session is
   * revoked or its user changes (main.ts makes it on the cluster). Without one, every request
   * reads its session from the database.
   */
  sessionCache?: SessionCache;
  /** Scale-out: the cluster (Redis) that API nodes share limits through. */
  cluster?: Cluster;
  /**
   * What this process serves (default PERCH_ROLE): `worker` answers only /api/v1/health and
   * /metrics; `all` and `api` serve the whole API and the web app.
   */
  role?: Config['PERCH_ROLE'];
  /** The clock of session lifetimes and step-up (ms since the epoch); tests move it. */
  now?: () => number;
  /**
   * Check every answer against its zod contract as well as writing it with the fast serializer
   * (plugins/response-serializer.ts). Default: on under the test runner (NODE_ENV=test), off in
   * production, where it would cost more than the rest of a signed-in request.
   */
  checkResponses?: boolean;
}

/**
 * A request as log lines show it: a feed URL's secret token (a reader's only credential) never
 * reaches the log.
 */
export function requestForLog(request: { method: string; url: string; ip?: string }) {
  return {
    method: request.method,
    url: request.url.replace(/\/feeds\/[^/?#]+/, '/feeds/[token]'),
    remoteAddress: request.ip,
  };
}

/** Builds the Fastify app. Never listens: main.ts does, tests call `inject`. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, db, collector, metrics, role = config.PERCH_ROLE } = options;
  const app = createServer(config, options);
  await app.register(errorHandlerPlugin);
  if (metrics) {
    await app.register(metricsPlugin, {
      metrics,
      db,
      queueSnapshot: collector && (() => collector.queueSnapshot()),
      xRateStatus: collector && (() => collector.source.rateStatus().endpoints),
    });
  }
  await app.register(securityHeadersPlugin, { config });
  if (role === 'worker') {
    await serveWorkerHealth(app, options);
    return app;
  }
  await app.register(fastifyCookie);
  await app.register(authPlugin, {
    config,
    db,
    sessionCache: options.sessionCache,
    now: options.now,
  });
  await app.register(refusalEventsPlugin, { db });
  await registerApiDocs(app);
  await app.register((api) => registerApiRoutes(api, options), { prefix: '/api/v1' });
  await app.register((web) => serveDashboard(web, options.webDist ?? WEB_DIST), {
    prefix: '/dashboard',
  });
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect('/dashboard/'));
  app.setNotFoundHandler(notFoundAnswer);
  return app;
}

/**
 * The Fastify instance with its logger, limits and zod type provider; no routes yet.
 *
 * Fastify gets Perch's logger as its own only when LOG_LEVEL asks for a line per request. With a
 * logger of its own, Fastify listens for the end of every response and times it, about a tenth of
 * a small answer's cost (docs/benchmarks.md, "API"). Otherwise it runs without one: the same
 * logger is `app.log`, and each request's `request.log` is its child with the request id.
 */
function createServer(
  config: Config,
  { logger, checkResponses = process.env.NODE_ENV === 'test' }: AppOptions,
) {
  const log: FastifyBaseLogger | undefined =
    logger === false
      ? undefined
      : createLogger(logger ?? { level: config.LOG_LEVEL, serializers: { req: requestForLog } }, {
          format: config.LOG_FORMAT,
        });
  const requestLines = log !== undefined && (log.level === 'debug' || log.level === 'trace');
  const app = Fastify({
    ...(requestLines
      ? { loggerInstance: log }
      : log && { childLoggerFactory: (_none, bindings, options) => log.child(bindings, options) }),
    bodyLimit: BODY_LIMIT,
    trustProxy: fastifyTrustProxy(config.TRUST_PROXY),
    // Per-request lines only when debugging; errors are always logged by the error handler.
    logController: new LogController({ disableRequestLogging: !requestLines }),
    routerOptions: { ignoreTrailingSlash: true },
    // The router's own errors skip every hook and the error handler: answer them here, in the
    // envelope and with the API's security headers.
    frameworkErrors: (error, request, reply) => {
      const { status, body } = routerErrorEnvelope(error);
      if (status >= 500) request.log.error({ err: error }, 'request failed');
      return (reply as FastifyReply)
        .code(status)
        .headers(apiSecurityHeaders(config))
        .type('application/json; charset=utf-8')
        .send(body);
    },
  }).withTypeProvider<ZodTypeProvider>();
  if (log && !requestLines) app.log = log;
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(responseSerializerCompiler({ check: checkResponses }));
  return app;
}

/** A worker serves its health (for the orchestrator) and /metrics, nothing of the API. */
async function serveWorkerHealth(app: FastifyInstance, { config, db }: AppOptions): Promise<void> {
  await app.register(
    async (api) => {
      await api.register(systemRoutes, { config, db, version: VERSION, healthOnly: true });
    },
    { prefix: '/api/v1' },
  );
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({
      success: false,
      message: `Not found: ${request.method} ${request.url.split('?')[0] ?? ''} (this is a worker process)`,
      code: 'NOT_FOUND',
    }),
  );
}

/** The OpenAPI document of every route's schemas, and its UI at /api/docs. */
async function registerApiDocs(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'Perch API', version: VERSION },
      components: {
        securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'perch_session' } },
      },
    },
    transform: jsonSchemaTransform,
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api/docs' });
}

/** Every module's routes, under /api/v1. */
async function registerApiRoutes(api: FastifyInstance, options: AppOptions): Promise<void> {
  const { config, db, collector, notify, xUsage, cluster } = options;
  await api.register(systemRoutes, { config, db, version: VERSION });
  await api.register(authRoutes, { config, db });
  await api.register(handlesRoutes, { db, collector });
  await api.register(tweetsRoutes, { db });
  await api.register(handleNotificationsRoutes, { db });
  await api.register(analyticsRoutes, { db, collector, cluster });
  await api.register(settingsRoutes, {
    db,
    channels: notify?.channels ?? createNotifyChannels(config),
    wakeWorker: notify?.wakeWorker,
    duplicateTests: notify?.duplicateTests,
  });
  await api.register(xAccountRoutes, { config, db });
  await api.register(adminRoutes, { config, db, collector, xUsage });
  await api.register(xWebAccountsRoutes, { config, db });
  await api.register(xWebOperationsRoutes, { config, db });
  await api.register(securityRoutes, { config, db });
  await api.register(twoFactorRoutes, { config, db });
  await api.register(notificationFiltersRoutes, { db });
  await api.register(feedsRoutes, { config, db });
  await api.register(alertsRoutes, { db });
  await api.register(webhooksRoutes, { config, db, webhook: notify?.channels.webhook });
  // Live updates need something that collects; without a collector there is nothing to send.
  if (collector) {
    await api.register(eventsRoutes, {
      db,
      events: collector.events,
      keepAliveMs: options.eventsKeepAliveMs,
      cluster,
    });
  }
}

/**
 * The web app under /dashboard, routed like everything else (never by testing the URL): its
 * files, and its own paths (/dashboard/settings, ...), which are no files and get the page.
 */
async function serveDashboard(web: FastifyInstance, webDist: string): Promise<void> {
  if (!fs.existsSync(path.join(webDist, 'index.html'))) {
    const notBuilt = (_request: FastifyRequest, reply: FastifyReply) =>
      reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The web app is not built yet. Run `npm run build` (npm start does it for you).');
    web.get('/', { schema: { hide: true } }, notBuilt);
    web.get('/*', { schema: { hide: true } }, notBuilt);
    return;
  }
  await web.register(fastifyStatic, webFiles(webDist));
  const page = (_request: FastifyRequest, reply: FastifyReply) =>
    reply.header('cache-control', 'no-cache').sendFile('index.html', webDist);
  web.get('/', { schema: { hide: true } }, page);
  // Reached when the file route finds no such file (or for a method nothing here routes).
  web.setNotFoundHandler((request, reply) =>
    request.method === 'GET' || request.method === 'HEAD'
      ? page(request, reply)
      : notFoundAnswer(request, reply),
  );
}

/** The 404 of a path no route serves, in the envelope. */
function notFoundAnswer(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply.code(404).send({
    success: false,
    message: `Not found: ${request.method} ${request.url.split('?')[0] ?? ''}`,
    code: 'NOT_FOUND',
  });
}

/** @fastify/static options for the built SPA, served under the prefix it is registered at. */
function webFiles(webDist: string): FastifyStaticOptions {
  return {
    root: webDist,
    prefix: '/',
    redirect: true,
    index: ['index.html'],
    // The build writes .br and .gz copies of every text asset (apps/web/vite.config.ts).
    preCompressed: true,
    // Vite's .vite/manifest.json is for tests, not for browsers.
    dotfiles: 'ignore',
    // Our own cache-control below; send's default would overwrite it.
    cacheControl: false,
    setHeaders(res, filePath) {
      res.setHeader('vary', 'accept-encoding');
      // Vite fingerprints everything under assets/; index.html must always be revalidated.
      res.setHeader(
        'cache-control',
        filePath.includes(`${path.sep}assets${path.sep}`)
          ? 'public, max-age=31536000, immutable'
          : 'no-cache',
      );
    },
  };
}
