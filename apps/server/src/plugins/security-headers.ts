import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet from 'helmet';
import type { Config } from '../config.js';

/**
 * JSON answers are never rendered, framed or run, so the API sends the short header set OWASP's
 * REST cheat sheet recommends instead of the document policy: a CSP that allows nothing, no
 * sniffing, no framing, no referrer.
 */
const API_HEADERS = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'; object-src 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
} as const;

const HSTS = 'max-age=31536000; includeSubDomains';

/** The headers of every JSON answer: the fixed API set, and HSTS when served over HTTPS. */
export function apiSecurityHeaders(config: Pick<Config, 'COOKIE_SECURE'>): Record<string, string> {
  return config.COOKIE_SECURE ? { ...API_HEADERS, 'strict-transport-security': HSTS } : API_HEADERS;
}

/**
 * Security headers: the fixed API set on API routes and unrouted paths, Helmet's full set with a
 * CSP under which the SPA works on the pages and files. Helmet's middleware is built once
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

    const apiHeaders = apiSecurityHeaders(config);
    app.addHook('onRequest', (request, reply, done) => {
      // By the route the router matched, never the raw URL. A path no route serves is answered
      // with a JSON 404, so it gets the API set too. The API docs are pages (Swagger UI): they
      // get the document policy, like the SPA.
      const route = request.routeOptions.url;
      if (route === undefined || (route.startsWith('/api/') && !route.startsWith('/api/docs'))) {
        reply.headers(apiHeaders);
        return done();
      }
      applyHeaders(request.raw, reply.raw, () => done());
    });
  },
);
