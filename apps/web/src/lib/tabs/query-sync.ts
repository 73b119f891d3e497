import { SYNC_BREAKER_WINDOW_MS } from '@perch/shared';
import type { QueryClient, QueryKey } from '@tanstack/react-query';
import { SyncBreaker } from '../resilience/sync-breaker';
import type { TabLeaderElection } from './leader-election';

/** A query result the leading tab shares with the others. */
interface SharedResult {
  kind: 'query-result';
  queryKey: QueryKey;
  data: unknown;
  updatedAt: number;
}

function isSharedResult(value: unknown): value is SharedResult {
  if (typeof value !== 'object' || value === null) return false;
  const { kind, queryKey, updatedAt } = value as Record<string, unknown>;
  return kind === 'query-result' && Array.isArray(queryKey) && typeof updatedAt === 'number';
}

export interface QuerySyncOptions {
  /** Clock for the sync breakers, for tests. */
  now?: () => number;
}

/**
 * Feeds the following tabs with the leading tab's query results (one tab polls, the
 * others follow), over the election's BroadcastChannel:
 * - the leader sends every result it stores (a fetch or a live update written to the cache);
 * - a follower writes a result into its cache when it has that query and its own copy is older,
 *   so its screens update without a request of their own.
 * The sync breaker guards each query: more than 5 sends within 10 s stop sending
 * it; the latest result then goes out once the window lets it, so a follower never stays behind.
 * Returns the teardown.
 */
export function shareQueryResults(
  queryClient: QueryClient,
  election: Pick<TabLeaderElection, 'isLeader' | 'broadcast' | 'onMessage'>,
  options: QuerySyncOptions = {},
): () => void {
  const cache = queryClient.getQueryCache();
  const breakers = new Map<string, SyncBreaker>();
  const trailing = new Map<string, ReturnType<typeof setTimeout>>();

  const send = (queryHash: string) => {
    const query = cache.get(queryHash);
    if (!query || query.state.data === undefined || !election.isLeader) return;
    let breaker = breakers.get(queryHash);
    if (!breaker) {
      breaker = new SyncBreaker({ now: options.now });
      breakers.set(queryHash, breaker);
    }
    if (!breaker.tryAttempt()) {
      if (!trailing.has(queryHash)) {
        trailing.set(
          queryHash,
          setTimeout(() => {
            trailing.delete(queryHash);
            send(queryHash);
          }, SYNC_BREAKER_WINDOW_MS / 2),
        );
      }
      return;
    }
    const message: SharedResult = {
      kind: 'query-result',
      queryKey: query.queryKey,
      data: query.state.data,
      updatedAt: query.state.dataUpdatedAt,
    };
    election.broadcast(message);
  };

  const unsubscribeCache = cache.subscribe((event) => {
    if (event.type === 'updated' && event.action.type === 'success') send(event.query.queryHash);
    if (event.type === 'removed') breakers.delete(event.query.queryHash);
  });

  const unsubscribeMessages = election.onMessage((payload, meta) => {
    if (!meta.fromLeader || !isSharedResult(payload) || election.isLeader) return;
    const query = cache.find({ queryKey: payload.queryKey, exact: true });
    if (!query || query.state.dataUpdatedAt >= payload.updatedAt) return;
    queryClient.setQueryData(payload.queryKey, payload.data, { updatedAt: payload.updatedAt });
  });

  return () => {
    unsubscribeCache();
    unsubscribeMessages();
    for (const timer of trailing.values()) clearTimeout(timer);
    trailing.clear();
  };
}
