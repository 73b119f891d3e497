import {
  xWebOperationsResponseSchema,
  type PinXWebOperationRequest,
  type XWebOperation,
  type XWebOperations,
} from '@perch/shared';
import { useQuery } from '@tanstack/react-query';
import { apiClient, type ApiAnswer } from '@/lib/api-client';
import { X_WEB_ACCOUNTS_POLL_MS } from '@/lib/polling/intervals';
import { adminQueryKeys } from './admin-query-keys';
import { adminQueryOptions, useAdminMutation } from './admin-query';

const PATH = '/admin/x-web-operations';

/**
 * GET /admin/x-web-operations: the GraphQL operations the x-web source calls now, where each
 * one's values came from, and how the last look at x.com's client went.
 */
export function getXWebOperations(signal?: AbortSignal): Promise<XWebOperations> {
  return apiClient.get(PATH, xWebOperationsResponseSchema, { signal });
}

/**
 * Polled with the account pool (30 s): a look at x.com's client may happen at any time (every
 * 6 hours, and at once after X refuses an operation).
 */
export function xWebOperationsQueryOptions() {
  return adminQueryOptions(adminQueryKeys.xWebOperations, getXWebOperations, {
    refetchInterval: X_WEB_ACCOUNTS_POLL_MS,
  });
}

/** The operations; `enabled` is false on servers that do not use the x-web source. */
export function useXWebOperationsQuery(enabled = true) {
  return useQuery({ ...xWebOperationsQueryOptions(), enabled });
}

/** Every change answers with the whole list: it replaces the cached one at once. */
function useOperationsMutation<V>(
  action: string,
  mutationFn: (variables: V) => Promise<ApiAnswer<XWebOperations>>,
) {
  return useAdminMutation(
    ['admin', 'x-web-operations', action],
    mutationFn,
    (queryClient, answer) => queryClient.setQueryData(adminQueryKeys.xWebOperations, answer.data),
  );
}

export interface PinXWebOperationInput {
  name: XWebOperation;
  request: PinXWebOperationRequest;
}

/** PUT /admin/x-web-operations/{name}: the operation is called with these values until unpinned. */
export function pinXWebOperation({
  name,
  request,
}: PinXWebOperationInput): Promise<ApiAnswer<XWebOperations>> {
  return apiClient.requestWithMessage(`${PATH}/${encodeURIComponent(name)}`, {
    method: 'PUT',
    body: request,
    schema: xWebOperationsResponseSchema,
  });
}

export function usePinXWebOperationMutation() {
  return useOperationsMutation('pin', pinXWebOperation);
}

/** DELETE /admin/x-web-operations/{name}: the operation follows x.com's client again. */
export function unpinXWebOperation(name: XWebOperation): Promise<ApiAnswer<XWebOperations>> {
  return apiClient.requestWithMessage(`${PATH}/${encodeURIComponent(name)}`, {
    method: 'DELETE',
    schema: xWebOperationsResponseSchema,
  });
}

export function useUnpinXWebOperationMutation() {
  return useOperationsMutation('unpin', unpinXWebOperation);
}

/** POST /admin/x-web-operations/refresh: reads x.com's client now instead of at the next look. */
export function refreshXWebOperations(): Promise<ApiAnswer<XWebOperations>> {
  return apiClient.requestWithMessage(`${PATH}/refresh`, {
    method: 'POST',
    schema: xWebOperationsResponseSchema,
  });
}

export function useRefreshXWebOperationsMutation() {
  return useOperationsMutation('refresh', refreshXWebOperations);
}
