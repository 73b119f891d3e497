import { MESSAGES } from '@perch/shared';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/errors.js';
import { HashGate, isCommonOrBreached } from './passwords.js';

/** Work the test finishes when it wants, to hold the gate's turns. */
function heldWork() {
  let finish: () => void = () => undefined;
  const done = new Promise<string>((resolve) => {
    finish = () => resolve('hashed');
  });
  return { work: () => done, finish };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('HashGate', () => {
  it('runs `concurrency` at once, queues `queue` more and refuses the rest with 503', async () => {
    const gate = new HashGate({ concurrency: 2, queue: 1 });
    const held = [heldWork(), heldWork(), heldWork()];
    const runs = held.map((item) => gate.run(item.work));
    expect(gate.stats()).toEqual({ running: 2, waiting: 1, peakRunning: 2, refused: 0 });

    const refused = await gate.run(heldWork().work).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({
      statusCode: 503,
      code: 'SERVER_BUSY',
      message: MESSAGES.serverBusy,
      headers: { 'retry-after': '1' },
    });
    expect(gate.stats().refused).toBe(1);

    held[0]!.finish();
    await runs[0];
    await settled();
    expect(gate.stats()).toMatchObject({ running: 2, waiting: 0, peakRunning: 2 });
    held[1]!.finish();
    held[2]!.finish();
    await expect(Promise.all(runs)).resolves.toEqual(['hashed', 'hashed', 'hashed']);
    expect(gate.stats()).toMatchObject({ running: 0, waiting: 0, peakRunning: 2 });
  });

  it('gives the turn back when the work throws', async () => {
    const gate = new HashGate({ concurrency: 1, queue: 0 });
    await expect(gate.run(() => Promise.reject(new Error('broken')))).rejects.toThrow('broken');
    await expect(gate.run(() => Promise.resolve('next'))).resolves.toBe('next');
  });

  it('starts waiting work at once when the concurrency is raised', async () => {
    const gate = new HashGate({ concurrency: 1, queue: 5 });
    const held = [heldWork(), heldWork(), heldWork()];
    const runs = held.map((item) => gate.run(item.work));
    expect(gate.stats()).toMatchObject({ running: 1, waiting: 2 });
    gate.configure({ concurrency: 3, queue: 5 });
    expect(gate.stats()).toMatchObject({ running: 3, waiting: 0, peakRunning: 3 });
    for (const item of held) item.finish();
    await Promise.all(runs);
  });
});

describe('isCommonOrBreached', () => {
  it.each(['password123', 'Password1', 'QWERTYUIOP', 'iloveyou1', 'letmein123', 'trustno1'])(
    'finds %s on the list, in any case',
    async (password) => {
      expect(await isCommonOrBreached(password)).toBe(true);
    },
  );

  it.each(['Sup3r-secret!', 'Corr3ct-Horse!', 'a-much-better-one-42', 'tr0ub4dor&3-staple'])(
    'lets %s pass',
    async (password) => {
      expect(await isCommonOrBreached(password)).toBe(false);
    },
  );
});
