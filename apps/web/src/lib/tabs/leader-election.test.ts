import {
  TAB_ELECTION_ANNOUNCE_WAIT_MS,
  TAB_ELECTION_PROPOSE_WAIT_MS,
  TAB_LEADER_DEAD_AFTER_MS,
  TAB_LEADER_HEARTBEAT_MS,
  TAB_LEADER_MONITOR_MS,
} from '@perch/shared';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  TabLeaderElection,
  bindPageLifecycle,
  outranks,
  type TabChannel,
  type TabLeaderElectionOptions,
} from './leader-election';
import { TestLocks, tabTestBed } from './test-channel-hub';

const ELECTION_MS = TAB_ELECTION_ANNOUNCE_WAIT_MS + TAB_ELECTION_PROPOSE_WAIT_MS;

const bed = tabTestBed();
let tabs: TabLeaderElection[];

/**
 * A started tab on the test's hub, stopped when the test ends. Without Web Locks unless given
 * (as over plain HTTP): the heartbeat alone finds a dead leader.
 */
function openTab(id: string, options: TabLeaderElectionOptions = {}): TabLeaderElection {
  const tab = new TabLeaderElection({
    id,
    createChannel: bed.hub.createChannel,
    locks: null,
    ...options,
  });
  tabs.push(tab);
  bed.cleanups.push(() => tab.stop());
  tab.start();
  return tab;
}

/** Moves fake time to an absolute point (the test starts at 0). */
async function at(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms - Date.now());
}

const leaders = () => tabs.filter((tab) => tab.isLeader).map((tab) => tab.id);

beforeEach(() => {
  tabs = [];
});

describe('TabLeaderElection', () => {
  it('uses the tab leader numbers', () => {
    expect(TAB_ELECTION_ANNOUNCE_WAIT_MS).toBe(100);
    expect(TAB_ELECTION_PROPOSE_WAIT_MS).toBe(600);
    expect(TAB_LEADER_HEARTBEAT_MS).toBe(5_000);
    expect(TAB_LEADER_MONITOR_MS).toBe(10_000);
    expect(TAB_LEADER_DEAD_AFTER_MS).toBe(15_000);
  });

  it('makes a lone tab leader after 100 ms + 600 ms', async () => {
    const a = openTab('a');
    expect(a.getSnapshot()).toEqual({ role: 'electing', isLeader: false, leaderId: null });
    expect(bed.hub.postedAt('announce', 'a')).toEqual([0]);
    await at(99);
    expect(bed.hub.postedAt('propose', 'a')).toEqual([]);
    await at(100);
    expect(bed.hub.postedAt('propose', 'a')).toEqual([100]);
    await at(699);
    expect(a.isLeader).toBe(false);
    await at(700);
    expect(a.getSnapshot()).toEqual({ role: 'leader', isLeader: true, leaderId: 'a' });
  });

  it('makes a second tab follow the leader at once', async () => {
    const a = openTab('a');
    await at(1_000);
    const b = openTab('b');
    await at(1_001);
    expect(b.getSnapshot()).toEqual({ role: 'follower', isLeader: false, leaderId: 'a' });
    expect(bed.hub.postedAt('propose', 'b')).toEqual([]);
    await at(120_000);
    expect(a.isLeader).toBe(true);
    expect(leaders()).toEqual(['a']);
  });

  it('has the leader send its heartbeat every 5 s', async () => {
    openTab('a');
    await at(700 + 4 * TAB_LEADER_HEARTBEAT_MS);
    // The claim itself, then every 5 s.
    expect(bed.hub.postedAt('leader', 'a')).toEqual([700, 5_700, 10_700, 15_700, 20_700]);
  });

  // Leader a claims at 700 and beats at 700 + 5 s·k; b follows from 1 000, so it checks at
  // 11 000, 21 000, 31 000… A leader killed after its beat at H is found dead at the first check
  // at or after H + 15 s, i.e. 15 s to 25 s after H, and b leads 700 ms later.
  it.each([
    { killAt: 5_800, lastBeat: 5_700, detectedAt: 21_000 },
    { killAt: 12_000, lastBeat: 10_700, detectedAt: 31_000 },
    { killAt: 16_000, lastBeat: 15_700, detectedAt: 31_000 },
    { killAt: 21_000, lastBeat: 20_700, detectedAt: 41_000 },
  ])(
    'replaces a silently killed leader (killed at $killAt ms) at the first check 15 s after its last beat',
    async ({ killAt, lastBeat, detectedAt }) => {
      const a = openTab('a');
      await at(1_000);
      const b = openTab('b');
      await at(killAt);
      a.stop();
      expect(bed.hub.postedAt('leader', 'a').at(-1)).toBe(lastBeat);
      expect(bed.hub.postedAt('resign')).toEqual([]);
      const silence = detectedAt - lastBeat;
      expect(silence).toBeGreaterThanOrEqual(TAB_LEADER_DEAD_AFTER_MS);
      expect(silence).toBeLessThan(TAB_LEADER_DEAD_AFTER_MS + TAB_LEADER_MONITOR_MS);

      await at(detectedAt - 1);
      expect(b.getSnapshot().role).toBe('follower');
      await at(detectedAt);
      expect(b.getSnapshot().role).toBe('electing');
      expect(bed.hub.postedAt('announce', 'b').at(-1)).toBe(detectedAt);
      await at(detectedAt + ELECTION_MS - 1);
      expect(b.isLeader).toBe(false);
      await at(detectedAt + ELECTION_MS);
      expect(b.getSnapshot()).toEqual({ role: 'leader', isLeader: true, leaderId: 'b' });
    },
  );

  it('elects a successor within the election waits when the leader resigns', async () => {
    const a = openTab('a');
    await at(1_000);
    const b = openTab('b');
    await at(2_000);
    const c = openTab('c');
    await at(20_000);
    a.resign();
    expect(a.getSnapshot().role).toBe('stopped');
    await at(20_001);
    expect(b.getSnapshot().role).toBe('electing');
    expect(c.getSnapshot().role).toBe('electing');
    await at(20_000 + ELECTION_MS - 1);
    expect(leaders()).toEqual([]);
    await at(20_000 + ELECTION_MS);
    // b started before c, so b outranks it.
    expect(leaders()).toEqual(['b']);
    await at(20_000 + ELECTION_MS + 1);
    expect(c.getSnapshot()).toEqual({ role: 'follower', isLeader: false, leaderId: 'b' });
    await at(200_000);
    expect(leaders()).toEqual(['b']);
  });

  it('elects exactly one of two tabs that start together (the lower id)', async () => {
    const b = openTab('b');
    const a = openTab('a');
    await at(ELECTION_MS);
    expect(leaders()).toEqual(['a']);
    await at(ELECTION_MS + 1);
    expect(b.getSnapshot()).toEqual({ role: 'follower', isLeader: false, leaderId: 'a' });
    await at(100_000);
    expect(leaders()).toEqual(['a']);
    expect(a.isLeader).toBe(true);
  });

  it('elects exactly one of many tabs starting close together (the earliest)', async () => {
    openTab('z');
    await at(30);
    openTab('a');
    await at(120);
    openTab('m');
    openTab('b');
    await at(5_000);
    expect(leaders()).toEqual(['z']);
    expect(tabs.filter((tab) => tab.getSnapshot().role === 'follower')).toHaveLength(3);
  });

  it('steps a lower-ranked leader down when two leaders hear each other', async () => {
    openTab('a');
    await at(1_000);
    const b = openTab('b');
    await at(2_000);
    // a freezes (its messages are lost); b takes over, then a wakes up.
    const channelOfA = bed.hub.log.find((entry) => (entry.data as { from: string }).from === 'a');
    if (!channelOfA) throw new Error('a posted nothing');
    bed.hub.disconnect(channelOfA.channel);
    await at(40_000);
    expect(leaders()).toEqual(['a', 'b']);
    bed.hub.reconnect(channelOfA.channel);
    await at(40_000 + TAB_LEADER_HEARTBEAT_MS);
    expect(leaders()).toEqual(['a']);
    expect(b.getSnapshot().leaderId).toBe('a');
  });

  it('shares the leader’s payloads with the followers', async () => {
    const a = openTab('a');
    await at(1_000);
    const b = openTab('b');
    const c = openTab('c');
    await at(1_001);
    const received = vi.fn();
    b.onMessage(received);
    const unsubscribe = c.onMessage(received);
    unsubscribe();
    a.broadcast({ queryKey: ['handles'], data: [1, 2] });
    await at(1_002);
    expect(received).toHaveBeenCalledTimes(1);
    expect(received).toHaveBeenCalledWith(
      { queryKey: ['handles'], data: [1, 2] },
      { from: 'a', fromLeader: true },
    );
  });

  it('offers a stable snapshot and notifies subscribers on changes', async () => {
    const a = openTab('a');
    const listener = vi.fn();
    const unsubscribe = a.subscribe(listener);
    const electing = a.getSnapshot();
    expect(a.getSnapshot()).toBe(electing);
    await at(700);
    expect(listener).toHaveBeenCalledTimes(1);
    expect(a.getSnapshot()).not.toBe(electing);
    const leading = a.getSnapshot();
    await at(30_000);
    expect(a.getSnapshot()).toBe(leading);
    expect(listener).toHaveBeenCalledTimes(1);
    unsubscribe();
    a.resign();
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it('ignores malformed messages', async () => {
    const a = openTab('a');
    await at(700);
    const stranger = bed.hub.createChannel('perch.tabs');
    stranger.postMessage({ type: 'leader', from: 'x' });
    stranger.postMessage({ type: 'resign', from: 'a' });
    stranger.postMessage('hello');
    stranger.postMessage(null);
    await at(701);
    expect(a.getSnapshot()).toEqual({ role: 'leader', isLeader: true, leaderId: 'a' });
    stranger.close();
  });

  it('resigns on pagehide and rejoins on a bfcache pageshow', async () => {
    const a = openTab('a');
    await at(700);
    const page = new EventTarget();
    const unbind = bindPageLifecycle(a, page);
    page.dispatchEvent(new Event('pagehide'));
    expect(bed.hub.postedAt('resign', 'a')).toEqual([700]);
    expect(a.getSnapshot().role).toBe('stopped');
    const restored = new Event('pageshow') as Event & { persisted: boolean };
    Object.defineProperty(restored, 'persisted', { value: true });
    page.dispatchEvent(restored);
    expect(a.getSnapshot().role).toBe('electing');
    unbind();
  });

  it('hands the lead to a follower that takes over, and keeps it there', async () => {
    const a = openTab('a');
    await at(700);
    const b = openTab('b');
    const c = openTab('c');
    await at(1_000);
    expect(leaders()).toEqual(['a']);
    b.takeOver();
    await at(1_001);
    expect(leaders()).toEqual(['b']);
    expect(a.getSnapshot()).toMatchObject({ role: 'follower', leaderId: 'b' });
    expect(c.getSnapshot()).toMatchObject({ role: 'follower', leaderId: 'b' });
    // Later beats of both keep b in the lead; a newcomer finds b.
    await at(30_000);
    const d = openTab('d');
    await at(31_000);
    expect(leaders()).toEqual(['b']);
    expect(d.getSnapshot()).toMatchObject({ role: 'follower', leaderId: 'b' });
    // The lead can move back.
    a.takeOver();
    await at(40_000);
    expect(leaders()).toEqual(['a']);
    expect(b.getSnapshot()).toMatchObject({ role: 'follower', leaderId: 'a' });
  });

  it('ignores a take-over by the leader itself or a stopped tab', async () => {
    const a = openTab('a');
    await at(700);
    a.takeOver();
    await at(701);
    expect(leaders()).toEqual(['a']);
    const b = openTab('b');
    await at(1_000);
    b.stop();
    b.takeOver();
    await at(1_001);
    expect(leaders()).toEqual(['a']);
    expect(b.getSnapshot().role).toBe('stopped');
  });

  it('ranks the earlier start first, then the lower id', () => {
    expect(outranks({ id: 'z', startedAt: 1 }, { id: 'a', startedAt: 2 })).toBe(true);
    expect(outranks({ id: 'a', startedAt: 2 }, { id: 'z', startedAt: 1 })).toBe(false);
    expect(outranks({ id: 'a', startedAt: 1 }, { id: 'b', startedAt: 1 })).toBe(true);
    expect(outranks({ id: 'b', startedAt: 1 }, { id: 'a', startedAt: 1 })).toBe(false);
  });
});

describe('TabLeaderElection with Web Locks', () => {
  let locks: TestLocks;
  beforeEach(() => {
    locks = new TestLocks();
  });

  /** A tab on the shared locks; `crash()` silences it and frees its locks, running none of its code. */
  function openLockedTab(id: string) {
    let channel: TabChannel | undefined;
    const tabLocks = locks.forTab();
    const tab = openTab(id, {
      locks: tabLocks,
      createChannel: (name) => (channel = bed.hub.createChannel(name)),
    });
    return {
      tab,
      crash() {
        bed.hub.disconnect(channel!);
        tabLocks.crash();
      },
    };
  }

  const lockOf = (id: string) => `perch.tabs:leader:${id}`;

  it('has the leader hold its lock and say so in its beats', async () => {
    const a = openLockedTab('a');
    await at(700);
    expect(a.tab.isLeader).toBe(true);
    expect(locks.holders(lockOf('a'))).toBe(1);
    const beats = bed.hub.log
      .map(({ data }) => data as { type: string; locked?: boolean })
      .filter((message) => message.type === 'leader');
    // The claim goes out at once; a beat that says "locked" follows as soon as it is granted.
    expect(beats.map((beat) => beat.locked ?? false)).toEqual([false, true]);
  });

  it('replaces a leader whose tab crashed within the election waits, not after 15 s', async () => {
    const a = openLockedTab('a');
    await at(1_000);
    const b = openLockedTab('b');
    const c = openLockedTab('c');
    await at(12_000);
    expect(b.tab.getSnapshot()).toMatchObject({ role: 'follower', leaderId: 'a' });
    a.crash();
    await at(12_001);
    expect(bed.hub.postedAt('resign')).toEqual([]);
    expect(b.tab.getSnapshot().role).toBe('electing');
    expect(c.tab.getSnapshot().role).toBe('electing');
    await at(12_000 + ELECTION_MS);
    expect(leaders().filter((id) => id !== 'a')).toEqual(['b']);
    await at(12_000 + ELECTION_MS + 1);
    expect(c.tab.getSnapshot()).toMatchObject({ role: 'follower', leaderId: 'b' });
    expect(locks.holders(lockOf('b'))).toBe(1);
    // And b's own crash hands the lead on the same way.
    b.crash();
    await at(20_000);
    expect(c.tab.isLeader).toBe(true);
  });

  it('runs one election when a leader resigns, though its lock is freed too', async () => {
    const a = openLockedTab('a');
    await at(1_000);
    const b = openLockedTab('b');
    await at(2_000);
    a.tab.resign();
    await at(2_000 + ELECTION_MS);
    expect(b.tab.isLeader).toBe(true);
    expect(bed.hub.postedAt('announce', 'b')).toEqual([1_000, 2_000]);
    expect(locks.holders(lockOf('a'))).toBe(0);
  });

  it('moves the lock with a take-over and keeps one leader', async () => {
    const a = openLockedTab('a');
    await at(700);
    const b = openLockedTab('b');
    const c = openLockedTab('c');
    await at(1_000);
    b.tab.takeOver();
    await at(2_000);
    expect(leaders()).toEqual(['b']);
    expect(locks.holders(lockOf('a'))).toBe(0);
    expect(locks.holders(lockOf('b'))).toBe(1);
    expect(a.tab.getSnapshot()).toMatchObject({ role: 'follower', leaderId: 'b' });
    expect(c.tab.getSnapshot()).toMatchObject({ role: 'follower', leaderId: 'b' });
    await at(60_000);
    expect(leaders()).toEqual(['b']);
    // a and c now wait on b's lock: b's crash is noticed at once.
    b.crash();
    await at(60_000 + ELECTION_MS);
    expect(leaders().filter((id) => id !== 'b')).toEqual(['a']);
  });

  it('lets go of every lock when the tab stops', async () => {
    const a = openLockedTab('a');
    await at(1_000);
    openLockedTab('b');
    await at(2_000);
    a.tab.stop();
    tabs.at(-1)!.stop();
    await at(2_001);
    expect(locks.holders(lockOf('a'))).toBe(0);
    expect(locks.holders(lockOf('b'))).toBe(0);
  });
});

describe('TabLeaderElection over the global BroadcastChannel', () => {
  it('elects one leader among real channels', async () => {
    expect(typeof BroadcastChannel).toBe('function');
    const channelName = `perch.tabs.test.${Math.random()}`;
    const one = new TabLeaderElection({ id: 'one', channelName });
    const two = new TabLeaderElection({ id: 'two', channelName });
    one.start();
    two.start();
    try {
      await vi.waitFor(
        () => {
          expect(one.isLeader).toBe(true);
          expect(two.getSnapshot()).toMatchObject({ role: 'follower', leaderId: 'one' });
        },
        { timeout: 3_000, interval: 50 },
      );
    } finally {
      one.stop();
      two.stop();
    }
  });
});
