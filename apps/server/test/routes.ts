import type { FastifyInstance } from 'fastify';

export interface RegisteredRoute {
  method: string;
  /** The path as the router knows it, parameters written `:name` (or `:a|:b` where merged). */
  path: string;
}

/**
 * Every route the app registered whose path starts with `prefix`, read from Fastify's route
 * tree, so tests that walk the route table cover new routes without being told. HEAD routes,
 * which Fastify adds for each GET, are left out. Each line of the printed tree is one segment,
 * indented four characters per level, with its methods in brackets when a route ends there.
 */
export function registeredRoutes(app: FastifyInstance, prefix = '/'): RegisteredRoute[] {
  const prefixes: string[] = [];
  const routes = new Map<string, RegisteredRoute>();
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const branch = line.search(/[├└]── /);
    if (branch < 0) continue;
    const depth = branch / 4;
    const match = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line.slice(branch + 4));
    if (!match) continue;
    const path = (prefixes[depth - 1] ?? '') + (match[1] ?? '');
    prefixes[depth] = path;
    prefixes.length = depth + 1;
    if (!path.startsWith(prefix)) continue;
    for (const method of (match[2] ?? '').split(', ').filter(Boolean)) {
      if (method !== 'HEAD') routes.set(`${method} ${path}`, { method, path });
    }
  }
  return [...routes.values()].sort((a, b) =>
    routeKey(a.method, a.path).localeCompare(routeKey(b.method, b.path)),
  );
}

/** `METHOD /path` with every path parameter written `:param` (the router merges their names). */
export function routeKey(method: string, path: string): string {
  return `${method} ${path.replace(/:[^/]+/g, ':param')}`;
}
