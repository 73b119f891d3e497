import {
  DELIVERY_LOG_DEFAULT_LIMIT,
  deliveryLogResponseSchema,
  type Delivery,
  type DeliveryChannel,
} from '@perch/shared';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { DELIVERY_LOG_POLL_MS } from '@/lib/polling/intervals';

export interface DeliveryLogParams {
  /** One channel, or every one when omitted. */
  channel?: DeliveryChannel;
  limit?: number;
}

/** GET /settings/deliveries: the user's latest deliveries, newest first. */
export async function getDeliveries(
  { channel, limit = DELIVERY_LOG_DEFAULT_LIMIT }: DeliveryLogParams = {},
  signal?: AbortSignal,
): Promise<Delivery[]> {
  const query = new URLSearchParams({ limit: String(limit) });
  if (channel) query.set('channel', channel);
  const data = await apiClient.get(
    `/settings/deliveries?${query.toString()}`,
    deliveryLogResponseSchema,
    { signal },
  );
  return data.deliveries;
}

export function deliveriesQueryOptions(params: DeliveryLogParams = {}) {
  const { channel, limit = DELIVERY_LOG_DEFAULT_LIMIT } = params;
  return queryOptions({
    queryKey: ['settings', 'deliveries', { channel: channel ?? 'all', limit }],
    queryFn: ({ signal }) => getDeliveries({ channel, limit }, signal),
    refetchInterval: DELIVERY_LOG_POLL_MS,
    placeholderData: keepPreviousData,
  });
}

export function useDeliveriesQuery(params: DeliveryLogParams = {}) {
  return useQuery(deliveriesQueryOptions(params));
}
