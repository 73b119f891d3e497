import { describe, expect, it } from 'vitest';
import {
  SERVICE_WINDOW_MS,
  TELEGRAM_GROUP_WINDOW_MS,
  createRateGate,
  createTelegramRateGate,
  isTelegramGroup,
  type RateGateOptions,
} from './rate-gate.js';

/** A clock that only moves when the gate sleeps, and a log of every sleep. */
function fakeClock(start = 1_000_000) {
  const clock = {
    t: start,
    sleeps: [] as number[],
    now: () => clock.t,
    sleep: (ms: number, signal?: AbortSignal) => {
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      clock.sleeps.push(ms);
      clock.t += ms;
      return Promise.resolve();
    },
  };
  return clock;
}

const gateWith = (clock: ReturnType<typeof fakeClock>, options: Partial<RateGateOptions>) =>
  createRateGate({ perSecond: 30, now: clock.now, sleep: clock.sleep, ...options });

/** Largest number of admissions inside any window of `windowMs`. */
function busiestWindow(times: number[], windowMs = 1000): number {
  let most = 0;
  for (let i = 0; i < times.length; i++) {
    const inWindow = times.filter((t) => t >= times[i]! && t < times[i]! + windowMs).length;
    most = Math.max(most, inWindow);
  }
  return most;
}

describe('rate gate', () => {
  it('lets a burst up to the overall limit through at once, then waits for the window', async () => {
    const clock = fakeClock();
    const gate = gateWith(clock, { perSecond: 3 });
    const admitted: number[] = [];
    for (let i = 0; i < 7; i++) {
      await gate.acquire(`chat-${i}`);
      admitted.push(clock.t - 1_000_000);
    }
    expect(admitted).toEqual([0, 0, 0, 1000, 1000, 1000, 2000]);
  });

  it('keeps one key to its own limit while other keys go ahead', async () => {
    const clock = fakeClock();
    const gate = gateWith(clock, { perSecond: 30, perKeyPerSecond: 1 });
    expect(gate.tryAcquire('a')).toBe(true);
    expect(gate.tryAcquire('a')).toBe(false);
    expect(gate.tryAcquire('b')).toBe(true);
    expect(gate.delayFor('a')).toBe(1000);
    expect(gate.whenCanSend('a')).toBe(clock.t + 1000);
    expect(gate.whenCanSend('c')).toBe(clock.t);
    clock.t += 999;
    expect(gate.tryAcquire('a')).toBe(false);
    clock.t += 1;
    expect(gate.tryAcquire('a')).toBe(true);
  });

  it('never admits more than 30 a second overall nor 1 a second per chat (Telegram)', async () => {
    const clock = fakeClock();
    const gate = createTelegramRateGate({ now: clock.now, sleep: clock.sleep });
    const byChat = new Map<string, number[]>();
    const all: number[] = [];
    // 200 messages for 40 chats, queued in a skewed order (chat 0 gets a quarter of them).
    for (let i = 0; i < 200; i++) {
      const chat = i % 4 === 0 ? 'chat-0' : `chat-${i % 40}`;
      await gate.acquire(chat);
      all.push(clock.t);
      byChat.set(chat, [...(byChat.get(chat) ?? []), clock.t]);
    }
    expect(busiestWindow(all, SERVICE_WINDOW_MS)).toBeLessThanOrEqual(30);
    for (const times of byChat.values()) expect(busiestWindow(times, SERVICE_WINDOW_MS)).toBe(1);
    // Chat 0 had 50 messages one window apart (the safety margin): the gate needs no more than that.
    expect(clock.t - 1_000_000).toBe(49 * SERVICE_WINDOW_MS);
  });

  it('spreads the service limit over the window (smooth): 15 at once, 15 half a window later', async () => {
    const clock = fakeClock();
    const gate = createTelegramRateGate({ now: clock.now, sleep: clock.sleep });
    const admitted: number[] = [];
    for (let i = 0; i < 45; i++) {
      await gate.acquire(`chat-${i}`);
      admitted.push(clock.t - 1_000_000);
    }
    const at = (ms: number) => admitted.filter((t) => t === ms).length;
    expect(at(0)).toBe(15);
    expect(at(SERVICE_WINDOW_MS / 2)).toBe(15);
    expect(at(SERVICE_WINDOW_MS)).toBe(15);
    // Never more than 30 in any window, nor 15 in any half window.
    expect(busiestWindow(admitted, SERVICE_WINDOW_MS)).toBeLessThanOrEqual(30);
    expect(busiestWindow(admitted, SERVICE_WINDOW_MS / 2)).toBeLessThanOrEqual(15);
  });

  it('keeps to its share of the overall limit when several processes send with one token', async () => {
    const clock = fakeClock();
    let processes = 2;
    const gate = createTelegramRateGate({
      now: clock.now,
      sleep: clock.sleep,
      share: () => processes,
    });
    const admitted: number[] = [];
    for (let i = 0; i < 30; i++) {
      await gate.acquire(`chat-${i}`);
      admitted.push(clock.t - 1_000_000);
    }
    // 15 a window for each of two processes: 30 sends take two windows.
    expect(busiestWindow(admitted, SERVICE_WINDOW_MS)).toBeLessThanOrEqual(15);
    expect(admitted.at(-1)).toBeGreaterThanOrEqual(SERVICE_WINDOW_MS);
    expect(gate.whenCanSend()).toBeGreaterThan(clock.t);
    // Alone again: the whole limit, so the next send fits at once.
    processes = 1;
    expect(gate.whenCanSend()).toBe(clock.t);
  });

  it('holds back one key or everything after a pause', async () => {
    const clock = fakeClock();
    const gate = gateWith(clock, { perSecond: 10, perKeyPerSecond: 5 });
    gate.pause(4000, 'a');
    expect(gate.delayFor('a')).toBe(4000);
    expect(gate.delayFor('b')).toBe(0);
    await gate.acquire('a');
    expect(clock.t - 1_000_000).toBe(4000);
    gate.pause(2500);
    expect(gate.delayFor('b')).toBe(2500);
    expect(gate.delayFor()).toBe(2500);
  });

  it('lets concurrent callers share the slots without overshooting', async () => {
    let t = 0;
    const gate = createRateGate({
      perSecond: 2,
      now: () => t,
      sleep: (ms) =>
        new Promise<void>((resolve) =>
          setImmediate(() => {
            t = Math.max(t, ms + t);
            resolve();
          }),
        ),
    });
    const admitted: number[] = [];
    await Promise.all(Array.from({ length: 6 }, () => gate.acquire().then(() => admitted.push(t))));
    expect(admitted).toHaveLength(6);
    expect(busiestWindow(admitted)).toBeLessThanOrEqual(2);
  });

  it('counts a send of weight n as n: the rest booked one window apart per key', async () => {
    const clock = fakeClock();
    const gate = gateWith(clock, { perSecond: 30, perKeyPerSecond: 1 });
    // An album of 3 to chat a: it goes at once, and takes that chat's next 3 windows.
    expect(gate.tryAcquire('a', 3)).toBe(true);
    expect(gate.whenCanSend('a')).toBe(clock.t + 3000);
    // Overall it took 3 of the 30: 27 more fit now, 28 do not.
    expect(gate.whenCanSend('b', 27)).toBe(clock.t);
    expect(gate.whenCanSend('b', 28)).toBe(clock.t + 1000);
    expect(gate.tryAcquire('b', 28)).toBe(false);
    expect(gate.delayFor()).toBe(0);
    await gate.acquire('a');
    expect(clock.t - 1_000_000).toBe(3000);
    // A weight that is not a whole number above 1 counts as 1.
    expect(gate.tryAcquire('c', 0)).toBe(true);
    expect(gate.tryAcquire('d', Number.NaN)).toBe(true);
    expect(gate.whenCanSend('e', 1.9)).toBe(gate.whenCanSend('e', 1));
  });

  it('admits a heavy send only when all of it fits the overall window', async () => {
    const clock = fakeClock();
    const gate = gateWith(clock, { perSecond: 10 });
    for (let i = 0; i < 5; i++) await gate.acquire(`chat-${i}`);
    clock.t += 400;
    await gate.acquire('album', undefined, 6);
    // 5 went at 0: the 6 wait for them to leave the window.
    expect(clock.t - 1_000_000).toBe(1000);
    // It took 6 of the 10 at once: 4 more fit, 5 wait for it to leave the window.
    expect(gate.whenCanSend(undefined, 4)).toBe(clock.t);
    expect(gate.delayFor(undefined, 5)).toBe(1000);
  });

  it('keeps a Telegram group to 20 a minute on top of 1 a second', async () => {
    const clock = fakeClock();
    const gate = createTelegramRateGate({ now: clock.now, sleep: clock.sleep });
    expect(isTelegramGroup('-1001234567890')).toBe(true);
    expect(isTelegramGroup('987654321')).toBe(false);
    const admitted: number[] = [];
    for (let i = 0; i < 20; i++) {
      await gate.acquire('-1001234567890');
      admitted.push(clock.t - 1_000_000);
    }
    expect(admitted).toEqual(Array.from({ length: 20 }, (_, i) => i * SERVICE_WINDOW_MS));
    // What the worker reads: the group's next send waits for the minute, a private chat does not.
    expect(gate.whenCanSend('-1001234567890') - 1_000_000).toBe(TELEGRAM_GROUP_WINDOW_MS);
    expect(gate.delayFor('987654321')).toBe(0);
    for (let i = 0; i < 25; i++) await gate.acquire('987654321');
    await gate.acquire('-1001234567890');
    expect(clock.t - 1_000_000).toBe(TELEGRAM_GROUP_WINDOW_MS);
  });

  it('counts an album in a group as that many of its 20 a minute', async () => {
    const clock = fakeClock();
    const gate = createTelegramRateGate({ now: clock.now, sleep: clock.sleep });
    await gate.acquire('-42', undefined, 10);
    await gate.acquire('-42', undefined, 10);
    // Two albums of 10: 1 a second puts the second 10 windows after the first.
    expect(clock.t - 1_000_000).toBe(10 * SERVICE_WINDOW_MS);
    expect(gate.whenCanSend('-42') - 1_000_000).toBe(TELEGRAM_GROUP_WINDOW_MS);
  });

  it('rejects with the abort reason and counts nothing', async () => {
    const clock = fakeClock();
    const gate = gateWith(clock, { perSecond: 1 });
    await gate.acquire();
    const controller = new AbortController();
    controller.abort(new Error('stopping'));
    await expect(gate.acquire(undefined, controller.signal)).rejects.toThrow('stopping');
    expect(gate.delayFor()).toBe(1000);
  });

  it('refuses limits below one', () => {
    expect(() => createRateGate({ perSecond: 0 })).toThrow(RangeError);
    expect(() => createRateGate({ perSecond: 1, perKeyPerSecond: 0 })).toThrow(RangeError);
    expect(() =>
      createRateGate({
        perSecond: 1,
        slowKeys: { limit: 0, windowMs: 60_000, appliesTo: () => true },
      }),
    ).toThrow(RangeError);
  });
});
