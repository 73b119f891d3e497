import {
  twoFactorResponseSchema,
  type SecuritySettings,
  type TwoFactorRequest,
  type TwoFactorResponse,
} from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient, type ApiAnswer } from '@/lib/api-client';
import { securityQueryKeys } from './security-query-keys';

/**
 * POST /security/2fa: `{enabled: true}` starts the set-up (a secret and its QR code), with the
 * secret and a code it finishes it (the recovery codes, shown once), `{enabled: false, code}`
 * turns it off.
 */
export function setTwoFactor(request: TwoFactorRequest): Promise<ApiAnswer<TwoFactorResponse>> {
  return apiClient.requestWithMessage('/security/2fa', {
    method: 'POST',
    body: request,
    schema: twoFactorResponseSchema,
  });
}

/** The cached settings once two-factor sign-in turned on or off. */
function settledSettings(
  current: SecuritySettings | null | undefined,
  response: TwoFactorResponse,
): SecuritySettings | null | undefined {
  if (!current || response.status === 'pending') return current;
  const enabled = response.status === 'enabled';
  return {
    ...current,
    twoFactorEnabled: enabled,
    recoveryCodesRemaining: enabled ? (response.recoveryCodes?.length ?? 0) : 0,
  };
}

export function useTwoFactorMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['security', 'two-factor'],
    mutationFn: setTwoFactor,
    onSuccess: ({ data }) => {
      if (data.status === 'pending') return;
      queryClient.setQueryData<SecuritySettings | null>(securityQueryKeys.settings, (current) =>
        settledSettings(current, data),
      );
      return queryClient.invalidateQueries({ queryKey: securityQueryKeys.all });
    },
  });
}
