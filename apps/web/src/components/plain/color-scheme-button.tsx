import { IconMoon, IconSun } from '@tabler/icons-react';
import { setColorScheme, useColorScheme } from '@/lib/color-scheme';
import classes from './color-scheme-button.module.css';

/**
 * Switches between dark (the default) and light on the pages without Mantine, as the signed-in
 * app's ColorSchemeToggle does there; both keep the choice in the same place.
 */
export function ColorSchemeButton() {
  const isDark = useColorScheme() === 'dark';
  return (
    <button
      type="button"
      className={classes.button}
      onClick={() => setColorScheme(isDark ? 'light' : 'dark')}
      aria-label="Toggle color scheme"
      title={isDark ? 'Light mode' : 'Dark mode'}
    >
      {isDark ? <IconSun size={18} stroke={1.6} /> : <IconMoon size={18} stroke={1.6} />}
    </button>
  );
}
