import { ActionIcon, useComputedColorScheme, useMantineColorScheme } from '@mantine/core';
import { IconMoon, IconSun } from '@tabler/icons-react';

/**
 * Switches between dark (the default) and light on the pages built with Mantine; Mantine keeps
 * the choice where the sign-in page's own button (plain/color-scheme-button.tsx) does. A native
 * title, not Mantine's Tooltip, as there: the floating-ui code behind Tooltip is not worth a
 * hint on one button.
 */
export function ColorSchemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const computed = useComputedColorScheme('dark', { getInitialValueInEffect: false });
  const isDark = computed === 'dark';
  const handleToggle = () => setColorScheme(isDark ? 'light' : 'dark');
  return (
    <ActionIcon
      variant="default"
      size="lg"
      radius="md"
      onClick={handleToggle}
      aria-label="Toggle color scheme"
      title={isDark ? 'Light mode' : 'Dark mode'}
    >
      {isDark ? <IconSun size={18} stroke={1.6} /> : <IconMoon size={18} stroke={1.6} />}
    </ActionIcon>
  );
}
