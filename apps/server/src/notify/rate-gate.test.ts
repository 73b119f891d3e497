import { describe, expect, it } from 'vitest';
import { createRateGate, createTelegramRateGate, type RateGateOptions } from './rate-gate.js';

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
    expect(busiestWindow(all, 1100)).toBeLessThanOrEqual(30);
    for (const times of byChat.values()) expect(busiestWindow(times, 1100)).toBe(1);
    // Chat 0 had 50 messages 1.1 s apart (the safety margin): the gate needs no more than that.
    expect(clock.t - 1_000_000).toBe(49 * 1100);
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
  });
});
