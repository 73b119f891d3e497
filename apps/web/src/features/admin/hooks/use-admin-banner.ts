import { SUCCESS_BANNER_MS } from '@perch/shared';
import { createContext, useContext, useMemo } from 'react';
import { useTimedMessage } from '@/lib/use-timed-message';

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
  const { message, show, clear } = useTimedMessage<AdminBannerMessage>();

  const notify: AdminNotifier = useMemo(
    () => ({
      success: (text) => show({ kind: 'success', text }, SUCCESS_BANNER_MS),
      error: (text, details) =>
        show({ kind: 'error', text, details: details === text ? undefined : details }),
    }),
    [show],
  );

  return useMemo(() => ({ message, dismiss: clear, notify }), [message, clear, notify]);
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
