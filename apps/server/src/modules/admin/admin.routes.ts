import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Collector } from '../../collector/collector.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { requireAdmin } from '../../plugins/auth.js';
import { adminCollectorRoutes } from './admin-collector.routes.js';

export interface AdminDeps {
  config: Config;
  db: Db;
  /** The in-process collector, when this process runs one. */
  collector?: Collector;
}

/**
 * /admin/* (doc 2 §7.6): every route needs an admin (401 signed out, 403 for a plain user, before
 * any validation); super-admin routes add `requireSuperAdmin` (ARCHITECTURE.md, roles).
 */
export const adminRoutes: FastifyPluginAsyncZod<AdminDeps> = async (app, deps) => {
  app.addHook('preValidation', requireAdmin);
  await app.register(adminCollectorRoutes, deps);
};
