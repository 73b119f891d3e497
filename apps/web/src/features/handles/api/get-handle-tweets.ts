import { TWEET_PAGE_SIZE, tweetPageResponseSchema } from '@perch/shared';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import { apiClient } from '@/lib/api-client';

export type TweetPage = z.infer<typeof tweetPageResponseSchema>;

export interface HandleTweetsParams {
  handle: string;
  page?: number;
  limit?: number;
}

/** GET /handles/{handle}/tweets: one page of a handle's collected tweets, newest first. */
export function getHandleTweets(
  { handle, page = 1, limit = TWEET_PAGE_SIZE }: HandleTweetsParams,
  signal?: AbortSignal,
): Promise<TweetPage> {
  const query = new URLSearchParams({ page: String(page), limit: String(limit) });
  return apiClient.get(
    `/handles/${encodeURIComponent(handle)}/tweets?${query.toString()}`,
    tweetPageResponseSchema,
    { signal },
  );
}

export function handleTweetsQueryOptions(params: HandleTweetsParams) {
  const { handle, page = 1, limit = TWEET_PAGE_SIZE } = params;
  return queryOptions({
    queryKey: ['handles', 'detail', handle.toLowerCase(), 'tweets', { page, limit }],
    queryFn: ({ signal }) => getHandleTweets({ handle, page, limit }, signal),
    placeholderData: keepPreviousData,
  });
}

export function useHandleTweetsQuery(params: HandleTweetsParams, enabled = true) {
  return useQuery({ ...handleTweetsQueryOptions(params), enabled });
}
