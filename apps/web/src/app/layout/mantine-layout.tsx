import '@mantine/core/styles.css';
import { MantineContext, MantineProvider } from '@mantine/core';
import { use } from 'react';
import { Outlet } from 'react-router';
import { colorSchemeManager, theme } from '../theme';

/**
 * Every page built with Mantine (the signed-in app, the FAQ, the not-found page) sits under this
 * route: Mantine's provider and styles load with the first of them, and the sign-in and
 * registration pages, drawn with plain components, carry none of it (docs/decisions.md, "The
 * sign-in page without Mantine"). Under a provider already (the component tests render the whole
 * app inside one), it adds none.
 */
export function MantineLayout() {
  const inherited = use(MantineContext);
  if (inherited) return <Outlet />;
  return (
    <MantineProvider
      theme={theme}
      defaultColorScheme="dark"
      colorSchemeManager={colorSchemeManager}
    >
      <Outlet />
    </MantineProvider>
  );
}

export { MantineLayout as Component };
