import { xConnectResponseSchema } from '@perch/shared';
import { useMutation } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';

/** POST /auth/twitter/connect: X's authorize URL, where the browser goes next. */
export async function connectXAccount(): Promise<string> {
  const data = await apiClient.post('/auth/twitter/connect', undefined, xConnectResponseSchema);
  return data.authorizeUrl;
}

/** How the browser leaves for X (an object, so tests can watch where it would go). */
export const browserNavigation = {
  assign: (url: string): void => window.location.assign(url),
};

export function useConnectXAccountMutation() {
  return useMutation({
    mutationKey: ['settings', 'x-connect'],
    mutationFn: connectXAccount,
    onSuccess: (url) => browserNavigation.assign(url),
  });
}
