import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { APP_BASE_PATH } from '@/lib/config';

/**
 * Once `when` is set, goes to the dashboard home after `delayMs` (300 ms after signing
 * in, 1.5 s after registering), falling back to a full load of the app's base path.
 */
export function useGoHomeAfter(when: unknown, delayMs: number): void {
  const navigate = useNavigate();
  useEffect(() => {
    if (!when) return;
    const timer = window.setTimeout(() => {
      try {
        void navigate('/', { replace: true });
      } catch {
        window.location.assign(APP_BASE_PATH);
      }
    }, delayMs);
    return () => window.clearTimeout(timer);
  }, [when, delayMs, navigate]);
}
