import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useSyncExternalStore,
  type ReactNode,
} from 'react';
import type { ClientRuntime } from './client-runtime';

/** The page's runtime; 'loading' while its module loads; null for a lone component under test. */
type RuntimeSlot = ClientRuntime | 'loading' | null;

const ClientRuntimeContext = createContext<RuntimeSlot>(null);

/** Makes the page's client runtime available to the hooks below. */
export function ClientRuntimeProvider({
  runtime,
  children,
}: {
  runtime: RuntimeSlot;
  children: ReactNode;
}) {
  return <ClientRuntimeContext.Provider value={runtime}>{children}</ClientRuntimeContext.Provider>;
}

const noSubscription = () => () => undefined;

function useRuntime(): ClientRuntime | null {
  const slot = useContext(ClientRuntimeContext);
  return slot === 'loading' ? null : slot;
}

/**
 * Whether this tab leads the others (and so holds the live stream). Not while the runtime loads;
 * without a runtime at all (a lone component under test) the tab counts as leading.
 */
export function useIsLeadingTab(): boolean {
  const slot = useContext(ClientRuntimeContext);
  const runtime = slot === 'loading' ? null : slot;
  return useSyncExternalStore(runtime ? runtime.election.subscribe : noSubscription, () =>
    runtime ? runtime.election.isLeader : slot === null,
  );
}

/** Whether the retry circuit refuses calls now (the server stopped answering). */
export function useCircuitOpen(): boolean {
  const runtime = useRuntime();
  return useSyncExternalStore(
    runtime ? (listener) => runtime.circuitBreaker.subscribe(listener) : noSubscription,
    () => runtime?.circuitBreaker.state === 'open',
  );
}

/** Sends the session heartbeat from the leading tab while `userId` is signed in. */
export function useSessionHeartbeat(userId: number | null): void {
  const runtime = useRuntime();
  useEffect(() => {
    runtime?.heartbeat.setUserId(userId);
  }, [runtime, userId]);
}

/**
 * Ends the session in every tab of this browser (tabs/sign-out.ts): a sign-out calls it before
 * its logout request leaves. Does nothing without a runtime.
 */
export function useEndSession(): () => void {
  const runtime = useRuntime();
  return useCallback(() => runtime?.endSession(), [runtime]);
}
