import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { successEnvelope, xUsageSummarySchema } from '@perch/shared';
import type { CollectorControl } from '../../domain/collector-control.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { errorResponses, ok } from '../../lib/reply.js';
import {
  createXUsageMeter,
  idleXUsageSummary,
  xWebUsageSummary,
  type XUsageMeter,
} from './x-usage.service.js';

export interface XUsageDeps {
  config: Config;
  db: Db;
  /** The in-process collector, when this process runs one (its source's rate limits). */
  collector?: CollectorControl;
  /** The meter the X API source records into; made from the config when not given. */
  xUsage?: XUsageMeter;
}

const errors = errorResponses(401, 403);
const tags = ['admin'];

/**
 * GET /admin/x-usage: what the X API costs and what limits it (admins only; registered inside
 * `adminRoutes`, whose guard answers 401 and 403). A process that reads from X but was given no
 * meter (an API process beside separate collectors) reads the same table through its own; the
 * demo source reads nothing from X and answers zeros.
 */
export const xUsageRoutes: FastifyPluginAsyncZod<XUsageDeps> = async (app, deps) => {
  const source = deps.collector?.source.name ?? deps.config.TWEET_SOURCE;
  const meter =
    deps.xUsage ?? (source === 'x-api' ? createXUsageMeter(deps.db, deps.config) : undefined);

  app.get(
    '/admin/x-usage',
    { schema: { tags, response: { 200: successEnvelope(xUsageSummarySchema), ...errors } } },
    async () => {
      const rateStatus = deps.collector ? deps.collector.source.rateStatus() : null;
      if (source === 'x-web') {
        const data = await xWebUsageSummary(deps.config, deps.db, rateStatus);
        return ok(data);
      }
      if (!meter) return ok(idleXUsageSummary(deps.config));
      return ok(await meter.summary({ rateStatus, source }));
    },
  );
};
