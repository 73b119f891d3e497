import './plain-theme.css';
import './styles.css';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import type { ClientRuntime } from '@/lib/client-runtime';
import { ClientRuntimeProvider } from '@/lib/client-runtime-react';

export interface AppProviderProps {
  queryClient: QueryClient;
  /** The page's client runtime (tab leadership, heartbeat, retry circuit); 'loading' until then. */
  runtime?: ClientRuntime | 'loading' | null;
  children: ReactNode;
}

/**
 * The query cache and the client runtime around the whole app. Mantine's provider and styles
 * come with the pages that use them (layout/mantine-layout.tsx); the sign-in page has its plain
 * theme (plain-theme.css) and global styles here.
 */
export function AppProvider({ queryClient, runtime = null, children }: AppProviderProps) {
  return (
    <QueryClientProvider client={queryClient}>
      <ClientRuntimeProvider runtime={runtime}>{children}</ClientRuntimeProvider>
    </QueryClientProvider>
  );
}
