import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Db } from '../../db/index.js';
import { UNMATCHED_ROUTE, type Metrics, type ScrapeSources } from '../../lib/metrics.js';
import { countDeliveriesByStatus, countHandlesByStatus } from './metrics.repository.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** `performance.now()` when the request arrived, for the answer's duration. */
    receivedAt: number;
  }
}

/** Where Prometheus scrapes: outside /api, so no session, CSRF or API envelope applies. */
export const METRICS_PATH = '/metrics';

export interface MetricsPluginOptions {
  /** This app's metrics (lib/metrics.ts createMetrics()). */
  metrics: Metrics;
  /** Read at scrape time for the handles and deliveries gauges. */
  db: Db;
  /** The collector queue's jobs by kind and state; without it perch_queue_jobs has no series. */
  queueSnapshot?: ScrapeSources['queueSnapshot'];
  /** `() => source.rateStatus().endpoints`; without it the X budget gauges have no series. */
  xRateStatus?: ScrapeSources['xRateStatus'];
}

/**
 * Prometheus metrics: counts and times every HTTP answer by route pattern (never the raw URL:
 * unknown paths are 'unmatched') and serves GET /metrics in the text exposition format.
 * /metrics itself is not counted. Its hooks apply app-wide, wherever in app.ts it is registered.
 */
export const metricsPlugin = fp(
  async (
    app: FastifyInstance,
    { metrics, db, queueSnapshot, xRateStatus }: MetricsPluginOptions,
  ) => {
    const log = app.log.child({ module: 'metrics' });
    metrics.scrapeFrom({
      queueSnapshot,
      xRateStatus,
      handles: () => countHandlesByStatus(db.db),
      deliveries: () => countDeliveriesByStatus(db.db),
      onError: (source, error) => log.warn({ err: error, source }, 'metrics: a source failed'),
    });

    // Counted and timed as the answer leaves (onSend), not when its last byte is written
    // (onResponse): an onResponse hook makes Fastify listen for the end of every response, about
    // a tenth of a small answer's cost. A file or stream is timed until it starts to flow.
    app.decorateRequest('receivedAt', 0);
    app.addHook('onRequest', (request, _reply, done) => {
      request.receivedAt = performance.now();
      done();
    });
    app.addHook('onSend', (request, reply, payload, done) => {
      const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
      if (route === METRICS_PATH) return done(null, payload);
      // A live-events stream lasts as long as the tab stays open: counted, but not timed.
      const type = reply.getHeader('content-type');
      const streaming = typeof type === 'string' && type.startsWith('text/event-stream');
      metrics.httpRequest(
        request.method,
        route,
        reply.statusCode,
        streaming ? null : (performance.now() - request.receivedAt) / 1000,
      );
      done(null, payload);
    });

    app.get(METRICS_PATH, { schema: { hide: true } }, async (_request, reply) => {
      const body = await metrics.render();
      return reply.header('cache-control', 'no-store').type(metrics.contentType).send(body);
    });
  },
  { name: 'perch-metrics' },
);
