import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { ok, requestsTo, stubFetch } from '@/test/fetch-stub';
import { ApiClient } from './api-client';
import { ClientRuntime } from './client-runtime';
import { TabLeaderElection } from './tabs/leader-election';
import { SIGN_OUT_CONTROL_PROPS, TabSignOut } from './tabs/sign-out';

/** Elections take 700 ms of real time; the tests wait for their outcome. */
const ELECTION_WAIT = { timeout: 3_000 };
const HEARTBEAT = 'POST /api/v1/session/heartbeat';

function stubServer() {
  return stubFetch({
    [HEARTBEAT]: () => ok({ received: true, serverTime: new Date().toISOString() }),
    'HEAD /api/v1/health': () => new Response(null, { status: 200 }),
  });
}

function startRuntime(): ClientRuntime {
  const runtime = new ClientRuntime(new ApiClient());
  onTestFinished(runtime.start());
  return runtime;
}

/** Another tab of this browser, on the same BroadcastChannel. */
function startOtherTab() {
  const election = new TabLeaderElection();
  const signOut = new TabSignOut(election);
  const sessionEnded = vi.fn();
  signOut.subscribe(sessionEnded);
  const stopHearing = signOut.start();
  election.start();
  onTestFinished(() => {
    stopHearing();
    election.stop();
  });
  return { election, signOut, sessionEnded };
}

/** The runtime follows another tab that leads. */
async function followingRuntime() {
  const other = startOtherTab();
  await vi.waitFor(() => expect(other.election.isLeader).toBe(true), ELECTION_WAIT);
  const runtime = startRuntime();
  await vi.waitFor(
    () => expect(runtime.election.getSnapshot().role).toBe('follower'),
    ELECTION_WAIT,
  );
  return { runtime, other };
}

function addButton(label: string, props: Record<string, string> = {}): HTMLElement {
  const button = document.createElement('button');
  for (const [name, value] of Object.entries(props)) button.setAttribute(name, value);
  const text = document.createElement('span');
  text.textContent = label;
  button.append(text);
  document.body.append(button);
  onTestFinished(() => button.remove());
  return text;
}

describe('ClientRuntime sign-out', () => {
  it('does not take the lead when Logout is pressed, but does for any other press', async () => {
    stubServer();
    const { runtime, other } = await followingRuntime();
    const takeOver = vi.spyOn(runtime.election, 'takeOver');
    const logout = addButton('Logout', SIGN_OUT_CONTROL_PROPS);
    const save = addButton('Save');

    // Reaching for Logout and pressing it, by mouse or keyboard.
    for (const type of ['mousemove', 'pointerdown', 'keydown']) {
      logout.dispatchEvent(new Event(type, { bubbles: true }));
    }
    expect(takeOver).not.toHaveBeenCalled();
    expect(runtime.election.getSnapshot().role).toBe('follower');
    expect(other.election.isLeader).toBe(true);

    save.dispatchEvent(new Event('pointerdown', { bubbles: true }));
    expect(takeOver).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(other.election.isLeader).toBe(false), ELECTION_WAIT);
    expect(runtime.election.isLeader).toBe(true);
  });

  it('tells the other tabs before it stops its heartbeat and leaves the signed-in pages', async () => {
    stubServer();
    const { runtime, other } = await followingRuntime();
    const order: string[] = [];
    const broadcast = runtime.election.broadcast.bind(runtime.election);
    vi.spyOn(runtime.election, 'broadcast').mockImplementation((payload) => {
      order.push(`broadcast ${JSON.stringify(payload)}`);
      broadcast(payload);
    });
    const setUserId = runtime.heartbeat.setUserId.bind(runtime.heartbeat);
    vi.spyOn(runtime.heartbeat, 'setUserId').mockImplementation((userId) => {
      order.push(`heartbeat for ${userId}`);
      setUserId(userId);
    });
    runtime.onSessionEnd(() => order.push('signed-in pages leave'));

    runtime.endSession();
    expect(order).toEqual([
      'broadcast {"kind":"session-ended"}',
      'heartbeat for null',
      'signed-in pages leave',
    ]);
    await vi.waitFor(() => expect(other.sessionEnded).toHaveBeenCalledTimes(1));
    // Nobody takes the lead for it.
    expect(other.election.isLeader).toBe(true);
    expect(runtime.election.getSnapshot().role).toBe('follower');
  });

  it('as the leader, stops beating when another tab signs out, and beats again after a new sign-in', async () => {
    const fetchMock = stubServer();
    const runtime = startRuntime();
    await vi.waitFor(() => expect(runtime.election.isLeader).toBe(true), ELECTION_WAIT);
    runtime.heartbeat.setUserId(3);
    await vi.waitFor(() => expect(runtime.heartbeat.getStatus()).toBe('beating'));
    expect(requestsTo(fetchMock, HEARTBEAT)).toHaveLength(1);
    const other = startOtherTab();
    await vi.waitFor(
      () => expect(other.election.getSnapshot().role).toBe('follower'),
      ELECTION_WAIT,
    );
    const sessionEnded = vi.fn();
    runtime.onSessionEnd(sessionEnded);

    other.signOut.announce();
    await vi.waitFor(() => expect(sessionEnded).toHaveBeenCalledTimes(1));
    expect(runtime.heartbeat.getStatus()).toBe('idle');
    expect(runtime.election.isLeader).toBe(true);
    expect(other.election.getSnapshot().role).toBe('follower');

    // The next sign-in starts clean: the heartbeat goes out at once for it.
    runtime.heartbeat.setUserId(3);
    await vi.waitFor(() => expect(requestsTo(fetchMock, HEARTBEAT)).toHaveLength(2));
    expect(runtime.heartbeat.getStatus()).toBe('beating');
  });
});
