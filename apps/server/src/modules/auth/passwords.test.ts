import { MESSAGES } from '@perch/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../config.js';
import { AppError } from '../../lib/errors.js';
import {
  HashGate,
  configurePasswordHashing,
  hashPassword,
  isCommonOrBreached,
  meetsOwaspMinimum,
  verifyPassword,
} from './passwords.js';

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

describe('password hashing cost', () => {
  const limits = { PASSWORD_HASH_CONCURRENCY: 2, PASSWORD_HASH_QUEUE: 32 };
  const configure = (
    config: Pick<Config, 'PASSWORD_HASH_MEMORY_KIB' | 'PASSWORD_HASH_ITERATIONS'>,
  ) => configurePasswordHashing({ ...limits, ...config });
  // Whatever another file set in this worker is put back.
  afterEach(() => configure(loadConfig({})));

  it("hashes with argon2id at OWASP's minimum by default: 19 MiB, 2 passes, 1 lane", async () => {
    configure(loadConfig({}));
    expect(await hashPassword('Sup3r-secret!')).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('hashes at the configured cost, and keeps verifying hashes made at another', async () => {
    configure(loadConfig({ PASSWORD_HASH_MEMORY_KIB: '256', PASSWORD_HASH_ITERATIONS: '1' }));
    const cheap = await hashPassword('Sup3r-secret!');
    expect(cheap).toMatch(/^\$argon2id\$v=19\$m=256,t=1,p=1\$/);

    configure(loadConfig({ PASSWORD_HASH_MEMORY_KIB: '1024', PASSWORD_HASH_ITERATIONS: '3' }));
    expect(await hashPassword('Sup3r-secret!')).toMatch(/\$m=1024,t=3,p=1\$/);
    expect(await verifyPassword(cheap, 'Sup3r-secret!')).toBe(true);
    expect(await verifyPassword(cheap, 'Sup3r-secret?')).toBe(false);
    // An unknown account still costs a verification, and still fails.
    expect(await verifyPassword(undefined, 'Sup3r-secret!')).toBe(false);
  });

  it('refuses a cost argon2 cannot run, naming the setting', () => {
    expect(() => loadConfig({ PASSWORD_HASH_MEMORY_KIB: '4' })).toThrow(/PASSWORD_HASH_MEMORY_KIB/);
    expect(() => loadConfig({ PASSWORD_HASH_ITERATIONS: '0' })).toThrow(/PASSWORD_HASH_ITERATIONS/);
  });

  it.each([
    [{ memoryKib: 19_456, iterations: 2 }, true],
    [{ memoryKib: 47_104, iterations: 1 }, true],
    [{ memoryKib: 7_168, iterations: 5 }, true],
    [{ memoryKib: 65_536, iterations: 3 }, true],
    [{ memoryKib: 19_456, iterations: 1 }, false],
    [{ memoryKib: 7_168, iterations: 4 }, false],
    [{ memoryKib: 256, iterations: 1 }, false],
  ])("%j meets one of OWASP's minimums: %s", (cost, expected) => {
    expect(meetsOwaspMinimum(cost)).toBe(expected);
  });
});
