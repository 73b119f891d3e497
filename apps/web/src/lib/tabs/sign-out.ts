import type { TabLeaderElection } from './leader-election';

/**
 * Sign-out across the tabs of one browser. The tabs share one session cookie, so a sign-out in
 * any of them ends the session in all of them, and from the logout request on no tab may send
 * anything on that session's behalf: a stream, a heartbeat or a poll would only be answered 401.
 * - The tab signing out tells the others over the election's channel before its logout request
 *   leaves (`announce`), then ends the session itself.
 * - Every tab that hears it ends the session too, leader or follower, and nobody's role changes:
 *   the listeners stop the heartbeat and show the sign-in page, which closes the leader's stream
 *   and ends its polls.
 * - Pressing the sign-out control is not use of the tab (`isSignOutControl`): a following tab
 *   that took the lead for that press would open the stream and send a heartbeat for the session
 *   it is about to end.
 * Nothing is remembered: the next sign-in starts like any other.
 */

/** What the tab signing out broadcasts, beside the leader's query results. */
interface SessionEnded {
  kind: 'session-ended';
}

const SESSION_ENDED: SessionEnded = { kind: 'session-ended' };

function isSessionEnded(payload: unknown): payload is SessionEnded {
  return (
    typeof payload === 'object' &&
    payload !== null &&
    (payload as { kind?: unknown }).kind === SESSION_ENDED.kind
  );
}

/** Spread on the control that signs out: pressing it does not make its tab take the lead. */
export const SIGN_OUT_CONTROL_PROPS = { 'data-sign-out': '' } as const;

const SIGN_OUT_CONTROL_SELECTOR = '[data-sign-out]';

/** Whether an event's target is a sign-out control or inside one. */
export function isSignOutControl(target: EventTarget | null): boolean {
  return target instanceof Element && target.closest(SIGN_OUT_CONTROL_SELECTOR) !== null;
}

/** One tab's side of the sign-out: what it announces and hears over the election's channel. */
export class TabSignOut {
  private readonly listeners = new Set<() => void>();

  constructor(private readonly election: Pick<TabLeaderElection, 'broadcast' | 'onMessage'>) {}

  /** Hears the other tabs' sign-outs; returns the teardown. */
  start(): () => void {
    return this.election.onMessage((payload) => {
      if (isSessionEnded(payload)) this.end();
    });
  }

  /** This tab signs out: the other tabs are told first, then this one ends the session. */
  announce(): void {
    this.election.broadcast(SESSION_ENDED);
    this.end();
  }

  /**
   * Called when the session ends, by a sign-out in this tab or another, in the order subscribed;
   * returns the removal.
   */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private end(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
