import { SUCCESS_BANNER_MS } from '@perch/shared';
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';

export interface AdminBannerMessage {
  kind: 'success' | 'error';
  text: string;
  /** A second, smaller line: why it failed, in the server's words. */
  details?: string;
}

/** How a section reports the outcome of an action on the page's banner. */
export interface AdminNotifier {
  success: (text: string) => void;
  error: (text: string, details?: string) => void;
}

export interface AdminBannerState {
  message: AdminBannerMessage | null;
  dismiss: () => void;
  notify: AdminNotifier;
}

export const AdminBannerContext = createContext<AdminBannerState | null>(null);

/**
 * The page's one banner: red for errors, green for successes. A success leaves
 * by itself after 5 s; an error stays until dismissed or replaced. A new outcome
 * always replaces the previous one, so a success never sits next to a stale failure.
 */
export function useAdminBannerState(): AdminBannerState {
  const [message, setMessage] = useState<AdminBannerMessage | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const stopTimer = useCallback(() => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
  }, []);

  const dismiss = useCallback(() => {
    stopTimer();
    setMessage(null);
  }, [stopTimer]);

  const notify: AdminNotifier = useMemo(
    () => ({
      success: (text) => {
        stopTimer();
        setMessage({ kind: 'success', text });
        timer.current = setTimeout(() => {
          timer.current = null;
          setMessage(null);
        }, SUCCESS_BANNER_MS);
      },
      error: (text, details) => {
        stopTimer();
        setMessage({ kind: 'error', text, details: details === text ? undefined : details });
      },
    }),
    [stopTimer],
  );

  useEffect(() => stopTimer, [stopTimer]);

  return useMemo(() => ({ message, dismiss, notify }), [message, dismiss, notify]);
}

function useAdminBannerContext(): AdminBannerState {
  const state = useContext(AdminBannerContext);
  if (!state) throw new Error('Admin sections must be rendered inside <AdminBannerProvider>.');
  return state;
}

/** The notifier of the page's banner, for a section's actions. */
export function useAdminNotifier(): AdminNotifier {
  return useAdminBannerContext().notify;
}

/** The banner's current message and its dismiss action. */
export function useAdminBanner(): Pick<AdminBannerState, 'message' | 'dismiss'> {
  const { message, dismiss } = useAdminBannerContext();
  return { message, dismiss };
}
