import { useCallback, useRef, useState } from 'react';

/**
 * Runs one task at a time: a call while the last one is still running is ignored
 * (duplicate test requests). The ref answers at once, before React has re-rendered the button.
 */
export function useSingleFlight() {
  const running = useRef(false);
  const [isRunning, setIsRunning] = useState(false);

  const run = useCallback((task: () => Promise<unknown>): boolean => {
    if (running.current) return false;
    running.current = true;
    setIsRunning(true);
    void task()
      .catch(() => undefined)
      .finally(() => {
        running.current = false;
        setIsRunning(false);
      });
    return true;
  }, []);

  return { run, isRunning };
}
