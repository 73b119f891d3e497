/**
 * Where API paths point. Its own module, below both the client and the request gate: each
 * reads a path the same way, and neither imports the other to do it.
 */

/** Base of every API path unless the path already starts with /api. */
export const API_BASE = '/api/v1';

/** Full URL path of an API path: /api/v1 is prepended unless the path starts with /api. */
export function apiUrl(path: string): string {
  if (path.startsWith('/api')) return path;
  return `${API_BASE}${path.startsWith('/') ? path : `/${path}`}`;
}
