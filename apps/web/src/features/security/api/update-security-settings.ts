import {
  securitySettingsSchema,
  type SecuritySettings,
  type updateSecuritySettingsSchema,
} from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { apiClient, type ApiAnswer } from '@/lib/api-client';
import { securityQueryKeys } from './security-query-keys';

export type SecuritySettingsChange = z.input<typeof updateSecuritySettingsSchema>;

/** PUT /security/settings with the switches that changed: answers the settings as they now are. */
export function updateSecuritySettings(
  change: SecuritySettingsChange,
): Promise<ApiAnswer<SecuritySettings>> {
  return apiClient.requestWithMessage('/security/settings', {
    method: 'PUT',
    body: change,
    schema: securitySettingsSchema,
  });
}

/**
 * Flips a switch at once and saves it: the cached settings change before the call, and go back
 * to what they were if it fails. The server's answer replaces them when it succeeds.
 */
export function useUpdateSecuritySettingsMutation() {
  const queryClient = useQueryClient();
  const key = securityQueryKeys.settings;
  return useMutation({
    mutationKey: ['security', 'update-settings'],
    mutationFn: updateSecuritySettings,
    onMutate: async (change) => {
      await queryClient.cancelQueries({ queryKey: key });
      const previous = queryClient.getQueryData<SecuritySettings | null>(key);
      if (previous) queryClient.setQueryData<SecuritySettings>(key, { ...previous, ...change });
      return { previous };
    },
    onError: (_error, _change, context) => {
      if (context?.previous) queryClient.setQueryData(key, context.previous);
    },
    onSuccess: ({ data }) => queryClient.setQueryData(key, data),
  });
}
