import { createContext, useContext, useEffect, useSyncExternalStore, type ReactNode } from 'react';
import type { ClientRuntime } from './client-runtime';

const ClientRuntimeContext = createContext<ClientRuntime | null>(null);

/** Makes the page's client runtime available to the hooks below. */
export function ClientRuntimeProvider({
  runtime,
  children,
}: {
  runtime: ClientRuntime | null;
  children: ReactNode;
}) {
  return <ClientRuntimeContext.Provider value={runtime}>{children}</ClientRuntimeContext.Provider>;
}

const noSubscription = () => () => undefined;

/**
 * Whether this tab leads the others (and so holds the live stream). Without a runtime (a lone
 * component under test) the tab counts as leading.
 */
export function useIsLeadingTab(): boolean {
  const runtime = useContext(ClientRuntimeContext);
  return useSyncExternalStore(runtime ? runtime.election.subscribe : noSubscription, () =>
    runtime ? runtime.election.isLeader : true,
  );
}

/** Whether the retry circuit refuses calls now (the server stopped answering). */
export function useCircuitOpen(): boolean {
  const runtime = useContext(ClientRuntimeContext);
  return useSyncExternalStore(
    runtime ? (listener) => runtime.circuitBreaker.subscribe(listener) : noSubscription,
    () => runtime?.circuitBreaker.state === 'open',
  );
}

/** Sends the session heartbeat from the leading tab while `userId` is signed in. */
export function useSessionHeartbeat(userId: number | null): void {
  const runtime = useContext(ClientRuntimeContext);
  useEffect(() => {
    runtime?.heartbeat.setUserId(userId);
  }, [runtime, userId]);
}
