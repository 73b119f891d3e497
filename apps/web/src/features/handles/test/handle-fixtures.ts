import type { Handle } from '@perch/shared';
import { ok, type StubHandler } from '@/test/fetch-stub';

import { makeHandle } from '@/test/api-records';

export { makeHandle, makeTweet } from '@/test/api-records';

/** A handle whose backfill is under way (at `backfill_progress` %); overrides say what differs. */
export function makeCollectingHandle(
  overrides: Partial<Handle> & { handle: string; backfill_progress: number },
): Handle {
  return makeHandle({ backfill_status: 'in_progress', backfill_completed_at: null, ...overrides });
}

/** The backfill-progress answer matching a handle's own fields. */
export function progressOf(handle: Handle): StubHandler {
  return () =>
    ok({
      progress: handle.backfill_progress,
      status: handle.backfill_status,
      totalTweets: handle.total_tweets_collected,
      message: '',
      estimatedCompletion: null,
      hasData: handle.total_tweets_collected > 0,
      lastUpdated: '2025-03-10T12:00:00.000Z',
      isComplete: false,
    });
}

/** Stubs for the progress endpoint of every handle given. */
export function progressStubs(handles: readonly Handle[]): Record<string, StubHandler> {
  return Object.fromEntries(
    handles.map((handle) => [
      `GET /api/v1/handles/${handle.handle}/backfill-progress`,
      progressOf(handle),
    ]),
  );
}

/** A promise with its resolve function, to hold a response back. */
export function deferred<T>() {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}
