import {
  CSRF_HEADER,
  HEARTBEAT_MAX_RETRIES,
  HEARTBEAT_RETRY_BASE_MS,
  HEARTBEAT_RETRY_MAX_MS,
} from '@perch/shared';
import { apiUrl } from '@/lib/api-url';
import { getClientId } from '@/lib/client-id';
import { readCsrfCookie } from '@/lib/cookies';
import { HEARTBEAT_INTERVAL_MS } from '@/lib/polling/intervals';
import {
  systemClock,
  type TabClock,
  type TabLeaderElection,
  type TimerHandle,
} from './leader-election';

export type HeartbeatStatus = 'idle' | 'beating' | 'retrying' | 'gave-up' | 'expired';

export interface LeaderHeartbeatOptions {
  /** Only the leading tab beats. */
  election: Pick<TabLeaderElection, 'getSnapshot' | 'subscribe'>;
  fetch?: typeof fetch;
  /** navigator.sendBeacon by default; may be absent. */
  sendBeacon?: ((url: string, data?: BodyInit | null) => boolean) | null;
  clock?: TabClock;
  /** Where pagehide is heard (window by default). */
  page?: Pick<EventTarget, 'addEventListener' | 'removeEventListener'>;
  clientId?: () => string;
  /** A heartbeat 401: the session is over; beating stops until setUserId is called again. */
  onSessionExpired?: () => void;
}

/** Delay before retry `attempt` (1-based): 1 s doubling, capped at the regular 15 s. */
export function heartbeatRetryDelay(attempt: number): number {
  return Math.min(HEARTBEAT_RETRY_BASE_MS * 2 ** (attempt - 1), HEARTBEAT_RETRY_MAX_MS);
}

const HEARTBEAT_PATH = '/session/heartbeat';

/**
 * The session heartbeat from the leading tab only: POST /session/heartbeat
 * right away and every 15 s while this tab leads and someone is signed in. A failed beat is
 * retried up to 10 times with backoff (1 s doubling to 15 s); after that the heartbeat stops
 * ('gave-up') until leadership or the user changes. On pagehide the leader sends one last beat as
 * a beacon (text/plain JSON: a beacon carries no custom headers, the server exempts this route
 * from CSRF).
 */
export class LeaderHeartbeat {
  private readonly election: LeaderHeartbeatOptions['election'];
  private readonly fetchImpl: typeof fetch;
  private readonly sendBeacon: LeaderHeartbeatOptions['sendBeacon'];
  private readonly clock: TabClock;
  private readonly page: LeaderHeartbeatOptions['page'];
  private readonly clientId: () => string;
  private readonly onSessionExpired: (() => void) | undefined;

  private userId: number | null = null;
  private running = false;
  /** Whether this tab leads; kept through 'stopped' so a resigning leader still sends its beacon. */
  private leading = false;
  private timer: TimerHandle | null = null;
  private inFlight = false;
  private retries = 0;
  /** Bumped on every stop, so a response to an earlier beat changes nothing. */
  private generation = 0;
  private status: HeartbeatStatus = 'idle';
  private unsubscribe: (() => void) | null = null;

  constructor(options: LeaderHeartbeatOptions) {
    this.election = options.election;
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.sendBeacon =
      options.sendBeacon === undefined
        ? typeof navigator !== 'undefined' && typeof navigator.sendBeacon === 'function'
          ? (url, data) => navigator.sendBeacon(url, data)
          : null
        : options.sendBeacon;
    this.clock = options.clock ?? systemClock;
    this.page = options.page ?? (typeof window === 'undefined' ? undefined : window);
    this.clientId = options.clientId ?? getClientId;
    this.onSessionExpired = options.onSessionExpired;
  }

  getStatus(): HeartbeatStatus {
    return this.status;
  }

  /** Signed-in user id, or null when signed out (which stops the heartbeat). */
  setUserId(userId: number | null): void {
    if (userId === this.userId && this.status !== 'expired') return;
    this.userId = userId;
    this.status = 'idle';
    this.halt();
    this.sync();
  }

  /** Starts beating again after it gave up (the server is back after an outage). */
  resume(): void {
    if (this.status !== 'gave-up') return;
    this.halt();
    this.sync();
  }

  /** Follows the election and listens for pagehide; returns stop. */
  start(): () => void {
    if (!this.running) {
      this.running = true;
      this.leading = this.election.getSnapshot().isLeader;
      this.unsubscribe = this.election.subscribe(this.handleElection);
      this.page?.addEventListener('pagehide', this.handlePageHide);
      this.sync();
    }
    return () => this.stop();
  }

  stop(): void {
    if (!this.running) return;
    this.running = false;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.page?.removeEventListener('pagehide', this.handlePageHide);
    this.halt();
  }

  /** The unload beat, from the leader while signed in; true when it went out. */
  sendUnloadBeacon(): boolean {
    if (this.userId === null || !this.leading || this.status === 'expired') return false;
    const url = apiUrl(HEARTBEAT_PATH);
    const json = JSON.stringify({
      user_id: this.userId,
      client_id: this.clientId(),
      timestamp: this.clock.now(),
      event: 'unload',
    });
    try {
      // A string body goes out as text/plain, which every browser accepts for a beacon.
      if (this.sendBeacon?.(url, json)) return true;
    } catch {
      // Refused: try the keepalive fetch below.
    }
    this.fetchImpl(url, {
      method: 'POST',
      body: json,
      headers: { 'Content-Type': 'text/plain;charset=UTF-8' },
      credentials: 'include',
      keepalive: true,
    }).catch(() => undefined);
    return true;
  }

  private readonly handlePageHide = (): void => {
    this.sendUnloadBeacon();
  };

  private readonly handleElection = (): void => {
    const { role, isLeader } = this.election.getSnapshot();
    // A tab that stops was leaving the page: keep what it was for the unload beacon.
    if (role !== 'stopped') this.leading = isLeader;
    if (!isLeader) this.halt();
    else if (this.status === 'gave-up') this.halt();
    this.sync();
  };

  private halt(): void {
    this.generation += 1;
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    this.inFlight = false;
    this.retries = 0;
    if (this.status !== 'expired') this.status = 'idle';
  }

  private shouldBeat(): boolean {
    return (
      this.running &&
      this.userId !== null &&
      this.election.getSnapshot().isLeader &&
      this.status !== 'expired'
    );
  }

  private sync(): void {
    if (!this.shouldBeat()) {
      if (this.timer !== null || this.inFlight) this.halt();
      return;
    }
    if (this.timer === null && !this.inFlight && this.status === 'idle') void this.beat();
  }

  private schedule(ms: number): void {
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      void this.beat();
    }, ms);
  }

  private async beat(): Promise<void> {
    const userId = this.userId;
    if (!this.shouldBeat() || userId === null) return;
    const generation = this.generation;
    this.inFlight = true;
    if (this.status === 'idle') this.status = 'beating';
    let status: number | null;
    try {
      const csrf = readCsrfCookie();
      const response = await this.fetchImpl(apiUrl(HEARTBEAT_PATH), {
        method: 'POST',
        credentials: 'include',
        headers: { 'Content-Type': 'application/json', ...(csrf ? { [CSRF_HEADER]: csrf } : {}) },
        body: JSON.stringify({
          user_id: userId,
          client_id: this.clientId(),
          timestamp: this.clock.now(),
          userAgent: typeof navigator === 'undefined' ? undefined : navigator.userAgent,
          url: typeof location === 'undefined' ? undefined : location.href,
        }),
      });
      status = response.ok ? 200 : response.status;
    } catch {
      status = null;
    }
    if (generation !== this.generation) return;
    this.inFlight = false;
    if (status === 200) {
      this.retries = 0;
      this.status = 'beating';
      this.schedule(HEARTBEAT_INTERVAL_MS);
      return;
    }
    if (status === 401) {
      this.status = 'expired';
      this.onSessionExpired?.();
      return;
    }
    if (this.retries >= HEARTBEAT_MAX_RETRIES) {
      this.status = 'gave-up';
      return;
    }
    this.retries += 1;
    this.status = 'retrying';
    this.schedule(heartbeatRetryDelay(this.retries));
  }
}
