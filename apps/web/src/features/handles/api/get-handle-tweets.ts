import {
  TWEET_PAGE_SIZE,
  tweetPageResponseSchema,
  type TweetSort,
  type TweetType,
} from '@perch/shared';
import {
  infiniteQueryOptions,
  keepPreviousData,
  queryOptions,
  useInfiniteQuery,
  useQuery,
} from '@tanstack/react-query';
import type { z } from 'zod';
import { apiClient } from '@/lib/api-client';
import { handleKeys } from './handle-keys';

export type TweetPage = z.infer<typeof tweetPageResponseSchema>;

export interface HandleTweetsParams {
  handle: string;
  page?: number;
  limit?: number;
  /** Search text: tweets holding every word (the last one as a prefix). */
  q?: string;
  type?: TweetType;
  sort?: TweetSort;
}

/**
 * GET /handles/{handle}/tweets: one page of a handle's collected tweets, newest first unless
 * sorted otherwise, searched and filtered when asked.
 */
export function getHandleTweets(
  { handle, page = 1, limit = TWEET_PAGE_SIZE, q, type, sort }: HandleTweetsParams,
  signal?: AbortSignal,
): Promise<TweetPage> {
  const query = new URLSearchParams({ page: String(page), limit: String(limit) });
  if (q) query.set('q', q);
  if (type) query.set('type', type);
  if (sort && sort !== 'newest') query.set('sort', sort);
  return apiClient.get(
    `/handles/${encodeURIComponent(handle)}/tweets?${query.toString()}`,
    tweetPageResponseSchema,
    { signal },
  );
}

export function handleTweetsQueryOptions(params: HandleTweetsParams) {
  const { handle, page = 1, limit = TWEET_PAGE_SIZE } = params;
  return queryOptions({
    queryKey: handleKeys.tweetPage(handle, { page, limit }),
    queryFn: ({ signal }) => getHandleTweets({ handle, page, limit }, signal),
    placeholderData: keepPreviousData,
  });
}

export function useHandleTweetsQuery(params: HandleTweetsParams, enabled = true) {
  return useQuery({ ...handleTweetsQueryOptions(params), enabled });
}

export type TweetBrowseParams = Omit<HandleTweetsParams, 'page'>;

/**
 * The tweet browser's pages, one more each time it asks: under the handle's tweets key, so the
 * live events that refresh a handle's tweets refresh these too. The previous search's tweets
 * stay on screen while the next one loads.
 */
export function handleTweetsBrowseQueryOptions(params: TweetBrowseParams) {
  const { handle, limit = TWEET_PAGE_SIZE, q = '', type, sort = 'newest' } = params;
  return infiniteQueryOptions({
    queryKey: handleKeys.tweetBrowse(handle, { limit, q, type: type ?? null, sort }),
    queryFn: ({ pageParam, signal }) =>
      getHandleTweets({ handle, page: pageParam, limit, q, type, sort }, signal),
    initialPageParam: 1,
    getNextPageParam: (last) => (last.has_more ? last.page + 1 : undefined),
    placeholderData: keepPreviousData,
  });
}

export function useHandleTweetsBrowseQuery(params: TweetBrowseParams, enabled = true) {
  return useInfiniteQuery({ ...handleTweetsBrowseQueryOptions(params), enabled });
}
