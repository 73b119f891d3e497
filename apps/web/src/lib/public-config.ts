import { publicConfigSchema, type PublicConfig } from '@perch/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { SUPPORT_EMAIL } from '@/lib/config';

/** GET /config: what the installation tells everyone before sign-in. */
export function getPublicConfig(): Promise<PublicConfig> {
  return apiClient.get('/config', publicConfigSchema);
}

export const publicConfigQueryOptions = queryOptions({
  queryKey: ['public-config'],
  queryFn: getPublicConfig,
  staleTime: Infinity,
});

/** The support address for invitation requests: the server's, or the default until it answers. */
export function useSupportEmail(): string {
  const { data } = useQuery(publicConfigQueryOptions);
  return data?.supportEmail ?? SUPPORT_EMAIL;
}
