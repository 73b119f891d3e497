import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AdminDeps } from './admin.routes.js';

/**
 * The collector side of /admin: processes with stop/start, global delete, data clean-up and the
 * collector account's verification challenge. Registered inside `adminRoutes` (admins only).
 */
export const adminCollectorRoutes: FastifyPluginAsyncZod<AdminDeps> = async (app, deps) => {
  void app;
  void deps;
};
