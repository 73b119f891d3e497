import { botStatusSchema, type BotStatus } from '@perch/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { botStatusFromComponents, loadComponentStatus } from '../utils/component-status';

export const botStatusQueryKey = ['settings', 'bot-status'] as const;

/** GET /bot/status: whether the user's forwarder runs, and whether it could. */
export function getBotStatus(signal?: AbortSignal): Promise<BotStatus> {
  return apiClient.get('/bot/status', botStatusSchema, { signal });
}

/**
 * The bot status starts from the component status this browser remembered (for up to an hour),
 * dated when it was saved: the forwarding badge shows at once, and since that
 * answer is older than the stale time the real status is fetched straight away.
 */
export function botStatusQueryOptions() {
  return queryOptions({
    queryKey: botStatusQueryKey,
    queryFn: ({ signal }) => getBotStatus(signal),
    initialData: () => {
      const remembered = loadComponentStatus();
      return remembered ? botStatusFromComponents(remembered.status) : undefined;
    },
    initialDataUpdatedAt: () => loadComponentStatus()?.savedAt,
  });
}

export function useBotStatusQuery() {
  return useQuery(botStatusQueryOptions());
}
