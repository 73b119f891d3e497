import '@mantine/core/styles.css';
import './styles.css';
import { MantineProvider } from '@mantine/core';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import type { ClientRuntime } from '@/lib/client-runtime';
import { ClientRuntimeProvider } from '@/lib/client-runtime-react';
import { colorSchemeManager, theme } from './theme';

export interface AppProviderProps {
  queryClient: QueryClient;
  /** The page's client runtime (tab leadership, heartbeat, retry circuit); 'loading' until then. */
  runtime?: ClientRuntime | 'loading' | null;
  children: ReactNode;
}

/** Theme, the query cache and the client runtime around the whole app. */
export function AppProvider({ queryClient, runtime = null, children }: AppProviderProps) {
  return (
    <MantineProvider
      theme={theme}
      defaultColorScheme="dark"
      colorSchemeManager={colorSchemeManager}
    >
      <QueryClientProvider client={queryClient}>
        <ClientRuntimeProvider runtime={runtime}>{children}</ClientRuntimeProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
}
