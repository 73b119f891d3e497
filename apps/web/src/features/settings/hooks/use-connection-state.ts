import { onlineManager } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { useCircuitOpen } from '@/lib/client-runtime-react';
import { useApiConnected } from '../api/get-health';

/** 'offline': the device has no network; 'down': the server is not answering. */
export type ConnectionState = 'ok' | 'offline' | 'down';

const subscribeOnline = onlineManager.subscribe.bind(onlineManager);
const isOnline = () => onlineManager.isOnline();

/**
 * How this page reaches the server: offline, down (its health check failed or the retry circuit
 * opened) or ok. The app-wide connection banner says it and the Settings cards turn read-only on
 * it, so the one message and the disabled forms always agree.
 */
export function useConnectionState(): ConnectionState {
  const online = useSyncExternalStore(subscribeOnline, isOnline);
  const apiConnected = useApiConnected();
  const circuitOpen = useCircuitOpen();
  if (!online) return 'offline';
  if (apiConnected === false || circuitOpen) return 'down';
  return 'ok';
}
