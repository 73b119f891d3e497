import { X_CONNECT_RESULT_PARAM } from '@perch/shared';
import { useEffect, useEffectEvent } from 'react';
import { useSearchParams } from 'react-router';
import { xConnectResult } from '../utils/settings-messages';
import type { SettingsNotifier } from './use-settings-banners';

/**
 * The way back from X's consent page: `?twitter=connected` or `?twitter=error&reason=...` shows
 * its banner once, then leaves the address (so a reload does not show it again).
 */
export function useXConnectResult(notify: SettingsNotifier): void {
  const [params, setParams] = useSearchParams();
  const result = xConnectResult(params);
  const announce = useEffectEvent(() => {
    if (!result) return;
    if (result.kind === 'success') notify.success(result.text);
    else notify.error(result.text);
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete(X_CONNECT_RESULT_PARAM);
        next.delete('reason');
        return next;
      },
      { replace: true },
    );
  });
  const outcome = params.get(X_CONNECT_RESULT_PARAM);
  useEffect(() => {
    if (outcome) announce();
  }, [outcome]);
}
