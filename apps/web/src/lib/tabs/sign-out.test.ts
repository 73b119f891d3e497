import { TAB_ELECTION_ANNOUNCE_WAIT_MS, TAB_ELECTION_PROPOSE_WAIT_MS } from '@perch/shared';
import { describe, expect, it, vi } from 'vitest';
import { TabLeaderElection } from './leader-election';
import { SIGN_OUT_CONTROL_PROPS, TabSignOut, isSignOutControl } from './sign-out';
import { tabTestBed } from './test-channel-hub';

const ELECTION_MS = TAB_ELECTION_ANNOUNCE_WAIT_MS + TAB_ELECTION_PROPOSE_WAIT_MS;

const bed = tabTestBed();

interface Tab {
  election: TabLeaderElection;
  signOut: TabSignOut;
  /** What happened in this tab, in order. */
  events: string[];
  /** Stops hearing the other tabs' sign-outs. */
  stopHearing: () => void;
}

function openTab(id: string): Tab {
  const election = new TabLeaderElection({ id, createChannel: bed.hub.createChannel });
  const signOut = new TabSignOut(election);
  const events: string[] = [];
  signOut.subscribe(() => events.push('session ended'));
  const stopHearing = signOut.start();
  election.start();
  bed.cleanups.push(() => {
    stopHearing();
    election.stop();
  });
  return { election, signOut, events, stopHearing };
}

/** The session-ended messages posted so far, by sender id. */
const sessionEndedFrom = () =>
  bed.hub.log
    .map(({ data }) => data as { type?: string; from?: string; payload?: { kind?: string } })
    .filter((message) => message.type === 'data' && message.payload?.kind === 'session-ended')
    .map((message) => message.from);

async function twoTabs(): Promise<{ leader: Tab; follower: Tab }> {
  const leader = openTab('a');
  await vi.advanceTimersByTimeAsync(ELECTION_MS);
  const follower = openTab('b');
  await vi.advanceTimersByTimeAsync(TAB_ELECTION_ANNOUNCE_WAIT_MS * 2);
  expect(leader.election.isLeader).toBe(true);
  expect(follower.election.getSnapshot().role).toBe('follower');
  return { leader, follower };
}

describe('TabSignOut', () => {
  it.each(['follower', 'leader'] as const)(
    'a %s that signs out tells the other tab first, and nobody takes the lead',
    async (role) => {
      const tabs = await twoTabs();
      const [signingOut, other] =
        role === 'leader' ? [tabs.leader, tabs.follower] : [tabs.follower, tabs.leader];
      signingOut.signOut.subscribe(() => {
        // By the time this tab ends its session, the message to the others has left.
        signingOut.events.push(`told ${sessionEndedFrom().length} time(s)`);
      });

      signingOut.signOut.announce();
      expect(signingOut.events).toEqual(['session ended', 'told 1 time(s)']);
      expect(sessionEndedFrom()).toEqual([signingOut.election.id]);
      // The other tab hears it as soon as the channel delivers, well before a poll could go out.
      await vi.advanceTimersByTimeAsync(0);
      expect(other.events).toEqual(['session ended']);

      // Signing out changes no role: the leader stays the leader (with nothing left to send).
      await vi.advanceTimersByTimeAsync(ELECTION_MS * 2);
      expect(tabs.leader.election.isLeader).toBe(true);
      expect(tabs.follower.election.getSnapshot().role).toBe('follower');
      expect(bed.hub.postedAt('leader', tabs.follower.election.id)).toEqual([]);
    },
  );

  it('ends nothing on the query results the leader shares', async () => {
    const { leader, follower } = await twoTabs();
    leader.election.broadcast({
      kind: 'query-result',
      queryKey: ['handles'],
      data: [],
      updatedAt: 1,
    });
    leader.election.broadcast({ kind: 'something-else' });
    leader.election.broadcast(null);
    await vi.advanceTimersByTimeAsync(0);
    expect(follower.events).toEqual([]);
    expect(leader.events).toEqual([]);
  });

  it('hears nothing more once stopped, and stops calling a removed listener', async () => {
    const { leader, follower } = await twoTabs();
    const removed = vi.fn();
    const remove = follower.signOut.subscribe(removed);
    remove();
    follower.stopHearing();
    leader.signOut.announce();
    await vi.advanceTimersByTimeAsync(0);
    expect(sessionEndedFrom()).toEqual([leader.election.id]);
    expect(follower.events).toEqual([]);
    expect(removed).not.toHaveBeenCalled();
  });

  it('can be announced again after a new sign-in: nothing of the last sign-out is kept', async () => {
    const { leader, follower } = await twoTabs();
    follower.signOut.announce();
    await vi.advanceTimersByTimeAsync(0);
    follower.signOut.announce();
    await vi.advanceTimersByTimeAsync(0);
    expect(leader.events).toEqual(['session ended', 'session ended']);
    expect(follower.events).toEqual(['session ended', 'session ended']);
  });
});

describe('isSignOutControl', () => {
  function element(html: string): HTMLElement {
    const root = document.createElement('div');
    root.innerHTML = html;
    return root.querySelector('#target') ?? root;
  }

  it.each([
    ['the control itself', '<button id="target" data-sign-out>Logout</button>', true],
    ['inside the control', '<button data-sign-out><span id="target">Logout</span></button>', true],
    ['another button', '<button id="target">Save</button>', false],
    [
      'next to the control',
      '<div><button data-sign-out></button><a id="target">FAQ</a></div>',
      false,
    ],
  ])('%s: %s', (_name, html, expected) => {
    expect(isSignOutControl(element(html))).toBe(expected);
  });

  it('is false for targets that are no element', () => {
    expect(isSignOutControl(null)).toBe(false);
    expect(isSignOutControl(window)).toBe(false);
    expect(isSignOutControl(document)).toBe(false);
  });

  it('recognises the props it asks a control to carry', () => {
    const button = document.createElement('button');
    for (const [name, value] of Object.entries(SIGN_OUT_CONTROL_PROPS)) {
      button.setAttribute(name, value);
    }
    expect(isSignOutControl(button)).toBe(true);
  });
});
