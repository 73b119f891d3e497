import { BACKFILL_STATUSES, type Handle } from '@perch/shared';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { z } from 'zod';
import { API_BASE } from '@/lib/api-url';
import { alertNewTweet } from '@/lib/preferences';
import { backfillProgressQueryOptions } from '../api/get-backfill-progress';
import { handleKeys } from '../api/handle-keys';

/** The server's live-updates stream (Server-Sent Events). */
export const LIVE_EVENTS_URL = `${API_BASE}/events`;

const handleEventSchema = z.object({ handleId: z.number(), username: z.string() });
const progressEventSchema = handleEventSchema.extend({
  status: z.enum(BACKFILL_STATUSES),
  progress: z.number(),
  totalTweets: z.number(),
  estimatedCompletion: z.string().nullable(),
});
const alertEventSchema = z.object({ handleId: z.number() });
const statusEventSchema = handleEventSchema.extend({
  status: z.enum(BACKFILL_STATUSES),
  error: z.string().nullable(),
});

function parse<T extends z.ZodType>(schema: T, event: MessageEvent<unknown>): z.output<T> | null {
  if (typeof event.data !== 'string') return null;
  try {
    const parsed = schema.safeParse(JSON.parse(event.data));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function updateHandle(queryClient: QueryClient, id: number, change: (handle: Handle) => Handle) {
  queryClient.setQueryData<Handle[]>(handleKeys.list, (handles) =>
    handles?.map((handle) => (handle.id === id ? change(handle) : handle)),
  );
}

/** A handle of the list the pages read, by id. */
function handleOf(queryClient: QueryClient, id: number): Handle | undefined {
  return queryClient.getQueryData<Handle[]>(handleKeys.list)?.find((handle) => handle.id === id);
}

/** What another feature does with the same stream's events (composed in src/app). */
export type LiveEventsListener = (source: EventSource, queryClient: QueryClient) => void;

/** Handles the stream's events: every update lands in the query cache the pages already read. */
export function applyLiveEvents(source: EventSource, queryClient: QueryClient): void {
  source.addEventListener('handle.progress', (event) => {
    const data = parse(progressEventSchema, event);
    if (!data) return;
    updateHandle(queryClient, data.handleId, (handle) => ({
      ...handle,
      backfill_status: data.status,
      backfill_progress: data.progress,
      total_tweets_collected: Math.max(handle.total_tweets_collected, data.totalTweets),
      estimated_completion: data.estimatedCompletion,
    }));
  });

  source.addEventListener('handle.status', (event) => {
    const data = parse(statusEventSchema, event);
    if (!data) return;
    updateHandle(queryClient, data.handleId, (handle) => ({
      ...handle,
      backfill_status: data.status,
      last_error: data.error,
    }));
    // A new status changes more than the event says (completion time, counts, analytics).
    void queryClient.invalidateQueries({ queryKey: handleKeys.list });
    void queryClient.invalidateQueries({
      queryKey: backfillProgressQueryOptions(data.username).queryKey,
    });
  });

  source.addEventListener('tweet.new', (event) => {
    const data = parse(handleEventSchema, event);
    if (!data) return;
    void queryClient.invalidateQueries({
      queryKey: handleKeys.tweets(data.username),
    });
    alertNewTweet({ username: data.username, handleId: data.handleId });
  });

  // One of the user's alert rules fired on a handle: its posts' alert badges change.
  source.addEventListener('alert.fired', (event) => {
    const data = parse(alertEventSchema, event);
    const handle = data && handleOf(queryClient, data.handleId);
    if (handle) void queryClient.invalidateQueries({ queryKey: handleKeys.tweets(handle.handle) });
  });

  // The server closes the oldest streams of a session or user beyond its limits (5 and 10).
  // Reconnecting would push out another tab's stream in turn: this tab keeps to its polling.
  source.addEventListener('stream.replaced', () => source.close());
}

/**
 * While someone is signed in, listens to the server's live updates and folds them into the
 * handles queries (and, through `listeners`, other features' queries). The polling stays as it is: when the stream fails it simply carries on, and
 * EventSource reconnects by itself (after the server's `retry`), unless newer streams took this
 * one's place ('stream.replaced'). Closed on sign-out and unmount.
 */
export function useLiveEvents(
  userId: number | null,
  listeners: readonly LiveEventsListener[] = NO_LISTENERS,
): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (userId === null || typeof EventSource === 'undefined') return;
    const source = new EventSource(LIVE_EVENTS_URL);
    applyLiveEvents(source, queryClient);
    for (const listen of listeners) listen(source, queryClient);
    return () => source.close();
  }, [userId, queryClient, listeners]);
}

const NO_LISTENERS: readonly LiveEventsListener[] = [];
