import { apiClient, apiUrl } from '@/lib/api-client';

const HEARTBEAT_PATH = '/session/heartbeat';

export interface HeartbeatBody {
  user_id: number;
  client_id: string;
  timestamp: number;
  userAgent?: string;
  url?: string;
  event?: string;
}

/** POST /session/heartbeat: tells the server this signed-in tab is alive. */
export async function sendHeartbeat(body: HeartbeatBody): Promise<void> {
  await apiClient.post(HEARTBEAT_PATH, body);
}

/**
 * The unload heartbeat, as a beacon: it outlives the page. A beacon cannot carry headers, so
 * the server exempts this route from CSRF. Falls back to a keepalive fetch where sendBeacon
 * refuses a JSON body.
 */
export function sendHeartbeatBeacon(body: HeartbeatBody): void {
  const url = apiUrl(HEARTBEAT_PATH);
  const json = JSON.stringify(body);
  try {
    if (navigator.sendBeacon?.(url, new Blob([json], { type: 'application/json' }))) return;
  } catch {
    // Some browsers reject non-CORS-safelisted beacon types; use fetch below.
  }
  void fetch(url, {
    method: 'POST',
    body: json,
    headers: { 'Content-Type': 'application/json' },
    credentials: 'include',
    keepalive: true,
  }).catch(() => undefined);
}
