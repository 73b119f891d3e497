import { em, px, useMantineTheme } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';

/**
 * True below Mantine's `sm` breakpoint, where the same query as `hiddenFrom="sm"` applies. Read on
 * the first render, so phones never flash the wide layout. The tests' window is 1024 px wide, so
 * the wide layout is theirs unless a test makes it a phone's (src/test/viewport.ts).
 */
export function usePhoneLayout(): boolean {
  const theme = useMantineTheme();
  const breakpoint = px(theme.breakpoints.sm);
  const query =
    typeof breakpoint === 'number'
      ? `(max-width: ${em(breakpoint - 0.1)})`
      : `(max-width: calc(${theme.breakpoints.sm} - 0.1px))`;
  return useMediaQuery(query, undefined, { getInitialValueInEffect: false });
}
