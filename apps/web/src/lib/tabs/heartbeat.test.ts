import {
  HEARTBEAT_INTERVAL_MS,
  HEARTBEAT_MAX_RETRIES,
  HEARTBEAT_RETRY_BASE_MS,
  HEARTBEAT_RETRY_MAX_MS,
} from '@perch/shared';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LeaderHeartbeat, heartbeatRetryDelay } from './heartbeat';
import type { TabLeaderSnapshot, TabRole } from './leader-election';

/** An election whose role the test sets. */
function fakeElection(role: TabRole = 'follower') {
  let snapshot: TabLeaderSnapshot = { role, isLeader: role === 'leader', leaderId: null };
  const listeners = new Set<() => void>();
  return {
    getSnapshot: () => snapshot,
    subscribe: (listener: () => void) => {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    set(next: TabRole) {
      snapshot = { role: next, isLeader: next === 'leader', leaderId: null };
      for (const listener of [...listeners]) listener();
    },
  };
}

type FetchMock = ReturnType<typeof vi.fn<typeof fetch>>;

function respond(status: number): Response {
  return new Response(JSON.stringify({ success: status === 200 }), { status });
}

let fetchMock: FetchMock;
let sendBeacon: ReturnType<typeof vi.fn<(url: string, data?: BodyInit | null) => boolean>>;
let page: EventTarget;
let heartbeat: LeaderHeartbeat | null;
/** When each heartbeat POST went out (fake time, from 0). */
let callTimes: number[];
const beatTimes = () => [...callTimes];

function create(election: ReturnType<typeof fakeElection>, onSessionExpired?: () => void) {
  heartbeat = new LeaderHeartbeat({
    election,
    fetch: fetchMock,
    sendBeacon,
    page,
    clientId: () => 'client-1',
    onSessionExpired,
  });
  return heartbeat;
}

/** A heartbeat for a signed-in user (id 7), started in a tab of the given role. */
function startSignedIn(role: TabRole, onSessionExpired?: () => void) {
  const election = fakeElection(role);
  const beat = create(election, onSessionExpired);
  beat.setUserId(7);
  beat.start();
  return { election, beat };
}

/** Has the server answer every beat (its time kept in `callTimes`) with `answer()`. */
function serverAnswers(answer: () => Promise<Response>): void {
  fetchMock.mockImplementation(() => {
    callTimes.push(Date.now());
    return answer();
  });
}

async function at(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms - Date.now());
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(0);
  callTimes = [];
  fetchMock = vi.fn<typeof fetch>();
  serverAnswers(() => Promise.resolve(respond(200)));
  sendBeacon = vi.fn(() => true);
  page = new EventTarget();
  heartbeat = null;
});

afterEach(() => {
  heartbeat?.stop();
  vi.useRealTimers();
});

describe('LeaderHeartbeat', () => {
  it('uses the heartbeat numbers', () => {
    expect(HEARTBEAT_INTERVAL_MS).toBe(15_000);
    expect(HEARTBEAT_MAX_RETRIES).toBe(10);
    expect(HEARTBEAT_RETRY_BASE_MS).toBe(1_000);
    expect(HEARTBEAT_RETRY_MAX_MS).toBe(15_000);
    expect(Array.from({ length: 10 }, (_, index) => heartbeatRetryDelay(index + 1))).toEqual([
      1_000, 2_000, 4_000, 8_000, 15_000, 15_000, 15_000, 15_000, 15_000, 15_000,
    ]);
  });

  it('beats at once and every 15 s while this tab leads and someone is signed in', async () => {
    const { beat } = startSignedIn('leader');
    await at(45_000);
    expect(beatTimes()).toEqual([0, 15_000, 30_000, 45_000]);
    const [url, init] = fetchMock.mock.calls[0] ?? [];
    expect(url).toBe('/api/v1/session/heartbeat');
    expect(init).toMatchObject({ method: 'POST', credentials: 'include' });
    expect(JSON.parse(String(init?.body))).toMatchObject({
      user_id: 7,
      client_id: 'client-1',
      timestamp: 0,
      userAgent: navigator.userAgent,
      url: location.href,
    });
    expect(beat.getStatus()).toBe('beating');
  });

  it('stays quiet in a follower and starts when the tab becomes leader', async () => {
    const { election } = startSignedIn('follower');
    await at(60_000);
    expect(fetchMock).not.toHaveBeenCalled();
    election.set('leader');
    await at(75_000);
    expect(beatTimes()).toEqual([60_000, 75_000]);
    election.set('follower');
    await at(200_000);
    expect(beatTimes()).toEqual([60_000, 75_000]);
  });

  it('stops when signed out and resumes on the next sign-in', async () => {
    const election = fakeElection('leader');
    const beat = create(election);
    beat.start();
    await at(20_000);
    expect(fetchMock).not.toHaveBeenCalled();
    beat.setUserId(7);
    await at(35_000);
    expect(beatTimes()).toEqual([20_000, 35_000]);
    beat.setUserId(null);
    await at(100_000);
    expect(beatTimes()).toEqual([20_000, 35_000]);
    expect(beat.getStatus()).toBe('idle');
  });

  it('retries a failed beat up to 10 times with backoff, then gives up', async () => {
    serverAnswers(() => Promise.resolve(respond(503)));
    const { beat } = startSignedIn('leader');
    await at(1);
    expect(beat.getStatus()).toBe('retrying');
    await at(600_000);
    // The first try, then retries 1, 2, 4, 8 s apart and 15 s from then on.
    expect(beatTimes()).toEqual([
      0, 1_000, 3_000, 7_000, 15_000, 30_000, 45_000, 60_000, 75_000, 90_000, 105_000,
    ]);
    expect(fetchMock).toHaveBeenCalledTimes(1 + HEARTBEAT_MAX_RETRIES);
    expect(beat.getStatus()).toBe('gave-up');
  });

  it('beats again on resume after it gave up (the server is back)', async () => {
    let serverDown = true;
    serverAnswers(() => Promise.resolve(respond(serverDown ? 503 : 200)));
    const { beat } = startSignedIn('leader');
    await at(200_000);
    expect(beat.getStatus()).toBe('gave-up');
    expect(fetchMock).toHaveBeenCalledTimes(1 + HEARTBEAT_MAX_RETRIES);
    serverDown = false;
    beat.resume();
    await at(200_001);
    expect(fetchMock).toHaveBeenCalledTimes(2 + HEARTBEAT_MAX_RETRIES);
    expect(beat.getStatus()).toBe('beating');
    await at(215_000);
    expect(fetchMock).toHaveBeenCalledTimes(3 + HEARTBEAT_MAX_RETRIES);
    beat.resume();
    expect(fetchMock).toHaveBeenCalledTimes(3 + HEARTBEAT_MAX_RETRIES);
  });

  it('returns to the 15 s rhythm once a retry succeeds, with a fresh retry budget', async () => {
    let failures = 2;
    serverAnswers(() => {
      if (failures > 0) {
        failures -= 1;
        return Promise.reject(new TypeError('Failed to fetch'));
      }
      return Promise.resolve(respond(200));
    });
    const { beat } = startSignedIn('leader');
    await at(33_000);
    expect(beatTimes()).toEqual([0, 1_000, 3_000, 18_000, 33_000]);
    expect(beat.getStatus()).toBe('beating');
  });

  it('stops on a 401 and reports the expired session', async () => {
    serverAnswers(() => Promise.resolve(respond(401)));
    const expired = vi.fn();
    const { beat } = startSignedIn('leader', expired);
    await at(120_000);
    expect(beatTimes()).toEqual([0]);
    expect(expired).toHaveBeenCalledTimes(1);
    expect(beat.getStatus()).toBe('expired');
    page.dispatchEvent(new Event('pagehide'));
    expect(sendBeacon).not.toHaveBeenCalled();
  });

  it('ignores the answer to a beat sent before leadership was lost', async () => {
    let release: (response: Response) => void = () => undefined;
    serverAnswers(
      () =>
        new Promise<Response>((resolve) => {
          release = resolve;
        }),
    );
    const { election, beat } = startSignedIn('leader');
    await at(1_000);
    election.set('follower');
    release(respond(200));
    await at(100_000);
    expect(beatTimes()).toEqual([0]);
    expect(beat.getStatus()).toBe('idle');
  });

  it('sends the unload beacon from the leader on pagehide, even once it resigned', async () => {
    const { election } = startSignedIn('leader');
    await at(5_000);
    // The election resigns on the same pagehide, possibly first.
    election.set('stopped');
    page.dispatchEvent(new Event('pagehide'));
    expect(sendBeacon).toHaveBeenCalledTimes(1);
    const [url, data] = sendBeacon.mock.calls[0] ?? [];
    expect(url).toBe('/api/v1/session/heartbeat');
    expect(typeof data).toBe('string');
    expect(JSON.parse(String(data))).toEqual({
      user_id: 7,
      client_id: 'client-1',
      timestamp: 5_000,
      event: 'unload',
    });
  });

  it('sends no beacon from a follower or when signed out', async () => {
    const { election, beat } = startSignedIn('follower');
    page.dispatchEvent(new Event('pagehide'));
    election.set('leader');
    beat.setUserId(null);
    page.dispatchEvent(new Event('pagehide'));
    expect(sendBeacon).not.toHaveBeenCalled();
    beat.stop();
    beat.setUserId(7);
    page.dispatchEvent(new Event('pagehide'));
    expect(sendBeacon).not.toHaveBeenCalled();
  });

  it('falls back to a keepalive fetch when the beacon is refused', async () => {
    sendBeacon.mockReturnValue(false);
    const { beat } = startSignedIn('leader');
    await at(1);
    fetchMock.mockClear();
    expect(beat.sendUnloadBeacon()).toBe(true);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(fetchMock.mock.calls[0]?.[1]).toMatchObject({
      method: 'POST',
      keepalive: true,
      credentials: 'include',
      headers: { 'Content-Type': 'text/plain;charset=UTF-8' },
    });
  });
});
