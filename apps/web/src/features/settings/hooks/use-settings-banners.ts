import { SUCCESS_BANNER_MS } from '@perch/shared';
import { useCallback, useMemo, useState } from 'react';
import type { AlertMessage } from '@/components/message-alert';
import { useTimedMessage } from '@/lib/use-timed-message';

/** How a card reports an outcome on the page's banners. */
export interface SettingsNotifier {
  success: (text: string) => void;
  error: (text: string) => void;
}

/** An outcome as a message, on the page's banners (where a second line has no place). */
export function reportOnBanners(notify: SettingsNotifier): (message: AlertMessage) => void {
  return (message) => notify[message.kind](message.text);
}

/**
 * The page's two banners: a red one that stays until dismissed or replaced,
 * and a green one that also leaves by itself after 5 s. A new outcome replaces
 * the other colour's banner, so the page never shows a success next to a stale failure.
 */
export function useSettingsBanners() {
  const [error, setError] = useState<string | null>(null);
  const successMessage = useTimedMessage(SUCCESS_BANNER_MS);
  const { show: showSuccess, clear: clearSuccess } = successMessage;

  const dismissError = useCallback(() => setError(null), []);
  const notify: SettingsNotifier = useMemo(
    () => ({
      success: (text) => {
        setError(null);
        showSuccess({ kind: 'success', text });
      },
      error: (text) => {
        clearSuccess();
        setError(text);
      },
    }),
    [showSuccess, clearSuccess],
  );

  return {
    error,
    success: successMessage.message?.text ?? null,
    dismissError,
    dismissSuccess: clearSuccess,
    notify,
  };
}
