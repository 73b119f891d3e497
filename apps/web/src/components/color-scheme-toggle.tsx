import { ActionIcon, Tooltip, useComputedColorScheme, useMantineColorScheme } from '@mantine/core';
import { IconMoon, IconSun } from '@tabler/icons-react';

/** Switches between dark (the default) and light; Mantine persists the choice. */
export function ColorSchemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const computed = useComputedColorScheme('dark', { getInitialValueInEffect: false });
  const isDark = computed === 'dark';
  const handleToggle = () => setColorScheme(isDark ? 'light' : 'dark');
  return (
    <Tooltip label={isDark ? 'Light mode' : 'Dark mode'} withArrow>
      <ActionIcon
        variant="default"
        size="lg"
        radius="md"
        onClick={handleToggle}
        aria-label="Toggle color scheme"
      >
        {isDark ? <IconSun size={18} stroke={1.6} /> : <IconMoon size={18} stroke={1.6} />}
      </ActionIcon>
    </Tooltip>
  );
}
