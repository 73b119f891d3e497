import { SYNC_BREAKER_MAX_ATTEMPTS, SYNC_BREAKER_WINDOW_MS } from '@perch/shared';
import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { TabLeaderElection } from './leader-election';
import { shareQueryResults } from './query-sync';
import { tabTestBed } from './test-channel-hub';

const bed = tabTestBed();

interface Tab {
  election: TabLeaderElection;
  queryClient: QueryClient;
}

function openTab(id: string): Tab {
  const election = new TabLeaderElection({ id, createChannel: bed.hub.createChannel });
  const queryClient = new QueryClient();
  const stop = shareQueryResults(queryClient, election);
  election.start();
  bed.cleanups.push(() => {
    stop();
    election.stop();
    queryClient.clear();
  });
  return { election, queryClient };
}

const sharedResults = () =>
  bed.hub.log.filter(
    ({ data }) => (data as { payload?: { kind?: string } }).payload?.kind === 'query-result',
  ).length;

async function twoTabs(): Promise<[Tab, Tab]> {
  const leader = openTab('a');
  await vi.advanceTimersByTimeAsync(700);
  const follower = openTab('b');
  await vi.advanceTimersByTimeAsync(200);
  expect(leader.election.isLeader).toBe(true);
  expect(follower.election.getSnapshot().role).toBe('follower');
  return [leader, follower];
}

describe('shareQueryResults', () => {
  it("writes the leader's results into a follower that shows the same query", async () => {
    const [leader, follower] = await twoTabs();
    follower.queryClient.setQueryData(['handles'], ['old'], { updatedAt: 1 });
    leader.queryClient.setQueryData(['handles'], ['nasa', 'esa']);
    await vi.advanceTimersByTimeAsync(0);
    expect(follower.queryClient.getQueryData(['handles'])).toEqual(['nasa', 'esa']);
  });

  it('leaves alone what a follower does not show, and never sends from a follower', async () => {
    const [leader, follower] = await twoTabs();
    leader.queryClient.setQueryData(['settings'], { a: 1 });
    await vi.advanceTimersByTimeAsync(0);
    expect(follower.queryClient.getQueryData(['settings'])).toBeUndefined();
    const sent = sharedResults();
    follower.queryClient.setQueryData(['mine'], 1);
    await vi.advanceTimersByTimeAsync(0);
    expect(sharedResults()).toBe(sent);
  });

  it("never overwrites a follower's newer copy", async () => {
    const [leader, follower] = await twoTabs();
    follower.queryClient.setQueryData(['handles'], ['newer'], { updatedAt: 5_000 });
    leader.queryClient.setQueryData(['handles'], ['older'], { updatedAt: 4_000 });
    await vi.advanceTimersByTimeAsync(0);
    expect(follower.queryClient.getQueryData(['handles'])).toEqual(['newer']);
  });

  it('sends one query at most 5 times in 10 s, then its latest result once the window allows', async () => {
    const [leader, follower] = await twoTabs();
    follower.queryClient.setQueryData(['progress'], 0, { updatedAt: 1 });
    const before = sharedResults();
    for (let step = 1; step <= 8; step += 1) {
      leader.queryClient.setQueryData(['progress'], step * 10);
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(sharedResults() - before).toBe(SYNC_BREAKER_MAX_ATTEMPTS);
    expect(follower.queryClient.getQueryData(['progress'])).toBe(50);
    await vi.advanceTimersByTimeAsync(SYNC_BREAKER_WINDOW_MS);
    expect(follower.queryClient.getQueryData(['progress'])).toBe(80);
  });

  it('lets the new leader feed the others after a take-over', async () => {
    const [leader, follower] = await twoTabs();
    leader.queryClient.setQueryData(['handles'], ['x'], { updatedAt: 1 });
    follower.election.takeOver();
    await vi.advanceTimersByTimeAsync(0);
    expect(follower.election.isLeader).toBe(true);
    follower.queryClient.setQueryData(['handles'], ['from b']);
    await vi.advanceTimersByTimeAsync(0);
    expect(leader.queryClient.getQueryData(['handles'])).toEqual(['from b']);
  });
});
