import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { SecurityDeps } from './security.routes.js';

/** POST /security/2fa: two-factor sign-in set-up and switch-off (doc 2 §7.7). */
export const twoFactorRoutes: FastifyPluginAsyncZod<SecurityDeps> = async (app, deps) => {
  void app;
  void deps;
};
