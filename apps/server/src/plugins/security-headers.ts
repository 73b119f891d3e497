import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet from 'helmet';
import type { Config } from '../config.js';

/**
 * Helmet's security headers with a CSP under which the SPA works. The middleware is built once
 * (@fastify/helmet rebuilds it on every request, which cost more than the whole session check).
 */
export const securityHeadersPlugin = fp(
  async (app: FastifyInstance, { config }: { config: Config }) => {
    const applyHeaders = helmet({
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          // Mantine writes its theme variables into a <style> element at run time.
          styleSrc: ["'self'", "'unsafe-inline'"],
          imgSrc: ["'self'", 'data:', 'https:'],
          connectSrc: ["'self'"],
          fontSrc: ["'self'", 'data:'],
          objectSrc: ["'none'"],
          frameAncestors: ["'none'"],
          baseUri: ["'self'"],
          formAction: ["'self'"],
          upgradeInsecureRequests: config.COOKIE_SECURE ? [] : null,
        },
      },
      strictTransportSecurity: config.COOKIE_SECURE,
    }) as (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

    app.addHook('onRequest', (request, reply, done) => {
      // Swagger UI serves its own page with its own CSP.
      if (request.url.startsWith('/api/docs')) return done();
      applyHeaders(request.raw, reply.raw, () => done());
    });
  },
);
