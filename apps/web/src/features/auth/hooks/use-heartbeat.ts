import { HEARTBEAT_INTERVAL_MS } from '@perch/shared';
import { useEffect } from 'react';
import { getClientId } from '@/lib/client-id';
import { sendHeartbeat, sendHeartbeatBeacon, type HeartbeatBody } from '../api/send-heartbeat';

function heartbeatBody(userId: number): HeartbeatBody {
  return {
    user_id: userId,
    client_id: getClientId(),
    timestamp: Date.now(),
    userAgent: navigator.userAgent,
    url: window.location.href,
  };
}

/**
 * While someone is signed in, tells the server every 15 s that this tab is alive, and once
 * more (as a beacon) when the page goes away. A heartbeat 401 is a session expiry: the API
 * client sends the person to the sign-in page.
 */
export function useHeartbeat(userId: number | null): void {
  useEffect(() => {
    if (userId === null) return;
    const beat = () => {
      sendHeartbeat(heartbeatBody(userId)).catch(() => {
        // A missed heartbeat is harmless; the next one follows in 15 s.
      });
    };
    const handlePageHide = () => {
      const { user_id, client_id, timestamp } = heartbeatBody(userId);
      sendHeartbeatBeacon({ user_id, client_id, timestamp, event: 'unload' });
    };
    beat();
    const timer = window.setInterval(beat, HEARTBEAT_INTERVAL_MS);
    window.addEventListener('pagehide', handlePageHide);
    return () => {
      window.clearInterval(timer);
      window.removeEventListener('pagehide', handlePageHide);
    };
  }, [userId]);
}
