import type { QueryClient } from '@tanstack/react-query';

/**
 * The query caches the render helpers made or were given during the current test. The test
 * setup clears them after each test: clearing cancels a query's pending retry, which would
 * otherwise fire after the test, into the fetch stub of whichever test runs next in the worker
 * (the web's test files share one module graph and one DOM per worker).
 */
const caches = new Set<QueryClient>();

/** Clears `client` once the current test has finished. */
export function clearAfterTest(client: QueryClient): QueryClient {
  caches.add(client);
  return client;
}

/** Clears every cache registered by `clearAfterTest` (the test setup's afterEach). */
export function clearTestQueryClients(): void {
  for (const client of caches) client.clear();
  caches.clear();
}
