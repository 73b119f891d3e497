import { useEffect, useState } from 'react';

/**
 * The current time, read again every `everyMs` while `enabled`, so relative times ('3 min ago')
 * and countdowns stay true.
 */
export function useNow(everyMs = 30_000, enabled = true): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!enabled) return;
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs, enabled]);
  return now;
}
