import { securitySettingsSchema, type SecuritySettings } from '@perch/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { orWhenNotFound } from './not-found';
import { securityQueryKeys } from './security-query-keys';

/**
 * GET /security/settings: two-factor state, recovery codes left and the alert switches; null
 * when the server has no security area (404).
 */
export function getSecuritySettings(signal?: AbortSignal): Promise<SecuritySettings | null> {
  return orWhenNotFound(
    apiClient.get('/security/settings', securitySettingsSchema, { signal }),
    null,
  );
}

export function securitySettingsQueryOptions() {
  return queryOptions({
    queryKey: securityQueryKeys.settings,
    queryFn: ({ signal }) => getSecuritySettings(signal),
  });
}

export function useSecuritySettingsQuery() {
  return useQuery(securitySettingsQueryOptions());
}
