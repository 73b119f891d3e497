import './compact.css';
import { useEffect } from 'react';
import { usePreferences } from './preferences';

/** The attribute on <html> that compact.css keys on. */
export const COMPACT_MODE_ATTRIBUTE = 'data-compact';

/**
 * Marks <html> with `data-compact="true"` while compact mode is on, which tightens spacing,
 * cards and tables app-wide (compact.css). Mount once, in the signed-in shell.
 */
export function useApplyCompactMode(): void {
  const [{ compactMode }] = usePreferences();
  useEffect(() => {
    if (!compactMode) return;
    const root = document.documentElement;
    root.setAttribute(COMPACT_MODE_ATTRIBUTE, 'true');
    return () => root.removeAttribute(COMPACT_MODE_ATTRIBUTE);
  }, [compactMode]);
}
