import { ActionIcon, useComputedColorScheme, useMantineColorScheme } from '@mantine/core';
import { IconMoon, IconSun } from '@tabler/icons-react';

/**
 * Switches between dark (the default) and light; Mantine persists the choice. A native title,
 * not Mantine's Tooltip: the sign-in page carries this button, and the floating-ui code behind
 * Tooltip would be a tenth of that page's script budget.
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
