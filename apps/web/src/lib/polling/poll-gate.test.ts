import type { NetworkQuality } from '@perch/shared';
import { QueryObserver } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { backgroundRefreshMs, preferencesStore } from '../preferences/preferences';
import { createQueryClient } from '../query-client';
import { PollGate, connectPollGate, pollMeta, type AnyQuery } from './poll-gate';

interface World {
  leader: boolean;
  online: boolean;
  visible: boolean;
  focused: boolean;
  quality: NetworkQuality;
  autoRefresh: boolean;
  circuitOpen: boolean;
}

let world: World;

function makeGate(): PollGate {
  return new PollGate({
    isLeader: () => world.leader,
    online: () => world.online,
    visible: () => world.visible,
    focused: () => world.focused,
    networkQuality: () => world.quality,
    autoRefresh: () => world.autoRefresh,
    circuitOpen: () => world.circuitOpen,
    now: () => Date.now(),
  });
}

/** A gate that has just seen the person act, so it polls at the active speed. */
function makeActiveGate(): PollGate {
  const gate = makeGate();
  gate.recordActivity();
  return gate;
}

function fakeQuery(meta?: Record<string, unknown>, data: unknown = undefined): AnyQuery {
  return { meta, state: { data } } as unknown as AnyQuery;
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(1_000_000);
  world = {
    leader: true,
    online: true,
    visible: true,
    focused: true,
    quality: 'moderate',
    autoRefresh: true,
    circuitOpen: false,
  };
});

afterEach(() => {
  vi.useRealTimers();
  preferencesStore.reset();
});

describe('PollGate.interval', () => {
  it('lets only the leading tab poll', () => {
    const gate = makeGate();
    expect(gate.interval(2_000, fakeQuery())).toBe(2_000);
    world.leader = false;
    expect(gate.interval(2_000, fakeQuery())).toBe(false);
  });

  it('keeps a query that asks for no polling unpolled', () => {
    const gate = makeGate();
    for (const base of [false, undefined, 0, -5, Number.POSITIVE_INFINITY] as const) {
      expect(gate.interval(base, fakeQuery())).toBe(false);
    }
  });

  it('stops polling offline and while the circuit is open; a probe keeps its own interval', () => {
    const gate = makeGate();
    world.online = false;
    expect(gate.interval(2_000, fakeQuery())).toBe(false);
    world.online = true;
    world.circuitOpen = true;
    expect(gate.interval(2_000, fakeQuery())).toBe(false);
    const probe = fakeQuery(pollMeta('low', { probe: true }));
    expect(gate.interval(30_000, probe)).toBe(30_000);
    // A probe is never stretched, and needs only the lead and a connection.
    world.quality = 'poor';
    world.focused = false;
    world.autoRefresh = false;
    expect(gate.interval(30_000, probe)).toBe(30_000);
    world.leader = false;
    expect(gate.interval(30_000, probe)).toBe(false);
    world.leader = true;
    world.online = false;
    expect(gate.interval(30_000, probe)).toBe(false);
  });

  it('with auto refresh off, polls only high priority (a running backfill)', () => {
    const gate = makeGate();
    world.autoRefresh = false;
    expect(gate.interval(30_000, fakeQuery())).toBe(false);
    expect(gate.interval(30_000, fakeQuery(pollMeta('low')))).toBe(false);
    expect(gate.interval(2_000, fakeQuery(pollMeta('high')))).toBe(2_000);
  });

  it('follows the activity speeds of the active mode: 2 s, 5 s, 15 s, 30 s', () => {
    const gate = makeGate();
    const query = fakeQuery();
    gate.recordActivity();
    expect(gate.interval(1_000, query)).toBe(2_000);
    vi.advanceTimersByTime(10_000);
    expect(gate.interval(1_000, query)).toBe(5_000);
    vi.advanceTimersByTime(50_000);
    expect(gate.interval(1_000, query)).toBe(15_000);
    vi.advanceTimersByTime(240_000);
    expect(gate.interval(1_000, query)).toBe(30_000);
    gate.recordActivity();
    expect(gate.interval(1_000, query)).toBe(2_000);
  });

  it("never goes below the query's own interval before the network multiplier", () => {
    const gate = makeActiveGate();
    expect(gate.interval(60_000, fakeQuery())).toBe(60_000);
    world.quality = 'good';
    expect(gate.interval(60_000, fakeQuery())).toBe(48_000);
    world.quality = 'slow';
    // Slow mode, fast speed (15 s) is under 60 s; x2 for a slow network.
    expect(gate.interval(60_000, fakeQuery())).toBe(120_000);
  });

  it('uses the background table for an unfocused page and the multipliers per network', () => {
    const gate = makeActiveGate();
    world.focused = false;
    expect(gate.interval(1_000, fakeQuery())).toBe(10_000);
    world.focused = true;
    world.quality = 'poor';
    expect(gate.interval(1_000, fakeQuery())).toBe(30_000 * 3);
    world.quality = 'slow';
    expect(gate.interval(1_000, fakeQuery())).toBe(15_000 * 2);
    world.quality = 'good';
    expect(gate.interval(1_000, fakeQuery())).toBe(1_600);
  });

  it('triples a hidden page for normal and high priority, not low', () => {
    const gate = makeActiveGate();
    world.visible = false;
    // Hidden is background mode: fast is 10 s, tripled.
    expect(gate.interval(1_000, fakeQuery())).toBe(30_000);
    expect(gate.interval(1_000, fakeQuery(pollMeta('high')))).toBe(30_000);
    expect(gate.interval(1_000, fakeQuery(pollMeta('low')))).toBe(10_000);
  });

  it('stretches after unchanged polls: 2x after 1, 4x after 3, 12x after 6, capped at 10 min', () => {
    const gate = makeActiveGate();
    const state = { data: { n: 1 } as unknown };
    const query = { meta: undefined, state } as unknown as AnyQuery;
    gate.recordResult(query);
    expect(gate.interval(2_000, query)).toBe(2_000);
    const factors = [2, 2, 4, 4, 4, 12];
    for (const factor of factors) {
      state.data = { n: 1 };
      gate.recordResult(query);
      expect(gate.interval(2_000, query)).toBe(2_000 * factor);
    }
    expect(gate.interval(120_000, query)).toBe(600_000);
    state.data = { n: 2 };
    gate.recordResult(query);
    expect(gate.unchangedPolls(query)).toBe(0);
    expect(gate.interval(2_000, query)).toBe(2_000);
  });

  it('tells its listeners when the activity speed drops a step', () => {
    const gate = makeGate();
    const listener = vi.fn();
    gate.subscribe(listener);
    gate.recordActivity();
    listener.mockClear();
    vi.advanceTimersByTime(9_999);
    expect(listener).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(listener).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(50_000);
    expect(listener).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(240_000);
    expect(listener).toHaveBeenCalledTimes(3);
    vi.advanceTimersByTime(3_600_000);
    expect(listener).toHaveBeenCalledTimes(3);
    gate.dispose();
  });
});

describe('backgroundRefreshMs', () => {
  it('is the refresh interval preference, 30 s by default', () => {
    expect(backgroundRefreshMs()).toBe(30_000);
    preferencesStore.update({ refreshInterval: 120_000 });
    expect(backgroundRefreshMs()).toBe(120_000);
  });
});

describe('a gated QueryClient', () => {
  it('polls through the gate and stops when the tab stops leading', async () => {
    const gate = makeActiveGate();
    const queryClient = createQueryClient({ pollGate: gate });
    const disconnect = connectPollGate(queryClient, gate);
    let calls = 0;
    const observer = new QueryObserver(queryClient, {
      queryKey: ['gated'],
      queryFn: () => ++calls,
      refetchInterval: 1_000,
    });
    const unsubscribe = observer.subscribe(() => undefined);
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toBe(1);
    // The data changes every poll: the active fast interval (2 s) holds.
    await vi.advanceTimersByTimeAsync(6_000);
    expect(calls).toBe(4);
    world.leader = false;
    gate.changed();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toBe(4);
    world.leader = true;
    gate.recordActivity();
    gate.changed();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(calls).toBe(5);
    unsubscribe();
    disconnect();
    gate.dispose();
    queryClient.clear();
  });

  it('counts unchanged polls and slows down by itself', async () => {
    const gate = makeActiveGate();
    const queryClient = createQueryClient({ pollGate: gate });
    const disconnect = connectPollGate(queryClient, gate);
    let calls = 0;
    const observer = new QueryObserver(queryClient, {
      queryKey: ['same'],
      queryFn: () => {
        calls += 1;
        return { same: true };
      },
      refetchInterval: 1_000,
    });
    const unsubscribe = observer.subscribe(() => undefined);
    // Polls at 0 and 2 s; the second is unchanged, so the next waits 4 s (at 6 s).
    await vi.advanceTimersByTimeAsync(5_999);
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(3);
    const query = queryClient.getQueryCache().find({ queryKey: ['same'] });
    expect(gate.unchangedPolls(query as unknown as AnyQuery)).toBe(2);
    unsubscribe();
    disconnect();
    gate.dispose();
    queryClient.clear();
  });

  it('only marks queries stale on invalidation in a following tab; the leader fetches', async () => {
    const gate = makeGate();
    const queryClient = createQueryClient({ pollGate: gate });
    let calls = 0;
    const observer = new QueryObserver(queryClient, {
      queryKey: ['list'],
      queryFn: () => ++calls,
    });
    const unsubscribe = observer.subscribe(() => undefined);
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toBe(1);
    world.leader = false;
    await queryClient.invalidateQueries({ queryKey: ['list'] });
    expect(calls).toBe(1);
    expect(queryClient.getQueryState(['list'])?.isInvalidated).toBe(true);
    world.leader = true;
    await queryClient.invalidateQueries({ queryKey: ['list'] });
    expect(calls).toBe(2);
    unsubscribe();
    gate.dispose();
    queryClient.clear();
  });
});
