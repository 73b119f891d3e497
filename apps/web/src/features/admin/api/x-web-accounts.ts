import {
  xWebAccountResponseSchema,
  xWebAccountsResponseSchema,
  type AddXWebAccount,
  type XWebAccount,
  type XWebAccounts,
} from '@perch/shared';
import { useQuery } from '@tanstack/react-query';
import { apiClient, type ApiAnswer } from '@/lib/api-client';
import { X_WEB_ACCOUNTS_POLL_MS } from '@/lib/polling/intervals';
import { adminQueryKeys } from './admin-query-keys';
import { challengeStatusQueryKey } from './get-challenge-status';
import { adminQueryOptions, useAdminMutation } from './admin-query';

/** GET /admin/x-web-accounts: the x-web collector accounts with status, limits and errors. */
export function getXWebAccounts(signal?: AbortSignal): Promise<XWebAccounts> {
  return apiClient.get('/admin/x-web-accounts', xWebAccountsResponseSchema, { signal });
}

export function xWebAccountsQueryOptions() {
  return adminQueryOptions(adminQueryKeys.xWebAccounts, getXWebAccounts, {
    refetchInterval: X_WEB_ACCOUNTS_POLL_MS,
  });
}

export function useXWebAccountsQuery() {
  return useQuery(xWebAccountsQueryOptions());
}

/** After a change the pool and the verification panel (which shows a waiting account) refresh. */
function usePoolMutation<V, R>(action: string, mutationFn: (variables: V) => Promise<R>) {
  return useAdminMutation(['admin', 'x-web-accounts', action], mutationFn, (queryClient) =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: adminQueryKeys.xWebAccounts }),
      queryClient.invalidateQueries({ queryKey: challengeStatusQueryKey }),
    ]),
  );
}

/** POST /admin/x-web-accounts: adds an account by cookies or by credentials. */
export function addXWebAccount(
  input: AddXWebAccount,
): Promise<ApiAnswer<{ account: XWebAccount }>> {
  return apiClient.requestWithMessage('/admin/x-web-accounts', {
    method: 'POST',
    body: input,
    schema: xWebAccountResponseSchema,
  });
}

export function useAddXWebAccountMutation() {
  return usePoolMutation('add', addXWebAccount);
}

export interface XWebAccountTarget {
  id: number;
  username: string;
}

/** DELETE /admin/x-web-accounts/{id}: the account is no longer used (its secrets go with it). */
export function removeXWebAccount({ id }: XWebAccountTarget): Promise<ApiAnswer<unknown>> {
  return apiClient.requestWithMessage(`/admin/x-web-accounts/${id}`, { method: 'DELETE' });
}

export function useRemoveXWebAccountMutation() {
  return usePoolMutation('remove', removeXWebAccount);
}

/** POST /admin/x-web-accounts/{id}/reset: an account that is out is used (or signs in) again. */
export function resetXWebAccount({ id }: XWebAccountTarget): Promise<ApiAnswer<unknown>> {
  return apiClient.requestWithMessage(`/admin/x-web-accounts/${id}/reset`, { method: 'POST' });
}

export function useResetXWebAccountMutation() {
  return usePoolMutation('reset', resetXWebAccount);
}
