import type { TweetSort, TweetType } from '@perch/shared';

/**
 * Cache keys of the handles feature, from the widest to the narrowest. Every key starts with
 * 'handles', so one prefix refreshes them all; a handle's own keys sit under its lower-case
 * name, so removing the handle drops them together and a new tweet refreshes every page of it.
 */
export const handleKeys = {
  all: ['handles'] as const,
  /** The signed-in user's list. */
  list: ['handles', 'list'] as const,
  /** Everything cached about one handle. */
  detail: (handle: string) => ['handles', 'detail', handle.toLowerCase()] as const,
  backfillProgress: (handle: string) =>
    [...handleKeys.detail(handle), 'backfill-progress'] as const,
  /** Every page of a handle's tweets, the dashboard's and the browser's. */
  tweets: (handle: string) => [...handleKeys.detail(handle), 'tweets'] as const,
  tweetPage: (handle: string, page: { page: number; limit: number }) =>
    [...handleKeys.tweets(handle), page] as const,
  tweetBrowse: (
    handle: string,
    filters: { limit: number; q: string; type: TweetType | null; sort: TweetSort },
  ) => [...handleKeys.tweets(handle), 'browse', filters] as const,
};

/**
 * Keys of the changes to handles. Add, remove and retry share the 'handles' prefix: the add form
 * waits while any of them runs. The switches and the filter have keys of their own, so a switch
 * flipped meanwhile does not hold the form up.
 */
export const handleMutationKeys = {
  listChanges: ['handles'] as const,
  add: ['handles', 'add'] as const,
  remove: ['handles', 'remove'] as const,
  retry: ['handles', 'retry'] as const,
  notifications: ['handle-notifications'] as const,
  filter: ['handle-filter'] as const,
};
