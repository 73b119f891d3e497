import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';

export interface SecurityDeps {
  config: Config;
  db: Db;
}

/** /security/* (doc 2 §7.7): the signed-in user's security record; super admins may filter. */
export const securityRoutes: FastifyPluginAsyncZod<SecurityDeps> = async (app, deps) => {
  void app;
  void deps;
};
