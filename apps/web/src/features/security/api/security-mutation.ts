import { useMutation, useQueryClient } from '@tanstack/react-query';
import { securityQueryKeys } from './security-query-keys';

/**
 * A change to the account's security: keyed `['security', name]`, and every security query is
 * read again once it succeeds, or with `refreshOn: 'settled'` whether it succeeds or not.
 */
export function useSecurityMutation<TData, TVariables = void>(
  name: string,
  mutationFn: (variables: TVariables) => Promise<TData>,
  refreshOn: 'success' | 'settled' = 'success',
) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: securityQueryKeys.all });
  return useMutation({
    mutationKey: ['security', name],
    mutationFn,
    ...(refreshOn === 'success' ? { onSuccess: refresh } : { onSettled: refresh }),
  });
}
