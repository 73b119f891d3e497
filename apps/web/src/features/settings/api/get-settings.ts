import { SETTINGS_CACHE_MS, settingsResponseSchema, type Settings } from '@perch/shared';
import { queryOptions, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { apiClient } from '@/lib/api-client';
import { SETTINGS_FETCH_MIN_GAP_MS } from '@/lib/polling/intervals';

export const settingsQueryKey = ['settings', 'current'] as const;

/** GET /settings: the user's channels, X account, bot state and what this server offers. */
export async function getSettings(signal?: AbortSignal): Promise<Settings> {
  const data = await apiClient.get('/settings', settingsResponseSchema, { signal });
  return data.settings;
}

/**
 * The settings fetch rules (docs/spec-notes.md, Settings rules), expressed as query options:
 *
 * - answers are cached 30 s (`staleTime`), so mounting the page again or focusing the tab within
 *   that time fetches nothing; a POST replaces the cache with the server's answer;
 * - a fetch never starts while one is in flight: TanStack Query hands every caller (mount, focus,
 *   interval, `refreshSettings`) the running request, since none of them asks to cancel it;
 * - an explicit refresh is skipped within 5 s of the last answer unless forced (`refreshSettings`).
 */
export function settingsQueryOptions() {
  return queryOptions({
    queryKey: settingsQueryKey,
    queryFn: ({ signal }) => getSettings(signal),
    staleTime: SETTINGS_CACHE_MS,
  });
}

export interface SettingsQueryOptions {
  /** Fetches again every this many ms (never below the 5 s minimum gap); off when omitted. */
  pollMs?: number | false;
}

export function useSettingsQuery({ pollMs = false }: SettingsQueryOptions = {}) {
  return useQuery({
    ...settingsQueryOptions(),
    refetchInterval: pollMs === false ? false : Math.max(pollMs, SETTINGS_FETCH_MIN_GAP_MS),
  });
}

/**
 * Fetches the settings again unless the last answer is under 5 s old (`force` ignores the age).
 * `fetchQuery` with that `staleTime` returns the cached answer when it is fresh enough, and joins
 * the request in flight instead of starting a second one. Failures land in the query's state.
 */
export async function refreshSettings(
  queryClient: QueryClient,
  { force = false }: { force?: boolean } = {},
): Promise<Settings | undefined> {
  try {
    return await queryClient.fetchQuery({
      ...settingsQueryOptions(),
      staleTime: force ? 0 : SETTINGS_FETCH_MIN_GAP_MS,
    });
  } catch {
    return undefined;
  }
}

export function useRefreshSettings() {
  const queryClient = useQueryClient();
  return useCallback(
    (options?: { force?: boolean }) => refreshSettings(queryClient, options),
    [queryClient],
  );
}
