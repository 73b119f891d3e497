/**
 * The updates poller's log while Telegram is down, against the loopback fake Bot API, on a clock
 * that moves only when the poller sleeps: 25 minutes of failures take a few hundred milliseconds.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  startFakeTelegramServer,
  type FakeTelegramServer,
} from '../../../test/fakes/fake-telegram-server.js';
import type { Logger } from '../../lib/logger.js';
import { createTelegramClient } from '../../notify/telegram/telegram-client.js';
import {
  TELEGRAM_POLL_DOWN_REPORT_MS,
  TELEGRAM_POLL_FAILED,
  TELEGRAM_POLL_RECOVERED,
  TELEGRAM_POLL_STILL_FAILING,
  type TelegramUpdatesPoller,
} from './telegram-updates.js';
import { telegramOnlyPoller } from './test-factories.js';

interface Line {
  level: 'info' | 'warn' | 'error';
  message: string;
  details: Record<string, unknown>;
}

let fake: FakeTelegramServer;
let poller: TelegramUpdatesPoller | undefined;

beforeEach(async () => {
  fake = await startFakeTelegramServer();
});
afterEach(async () => {
  await poller?.stop();
  poller = undefined;
  await fake.close();
});

/** Every line logged, in order. */
function recordingLog() {
  const lines: Line[] = [];
  const at =
    (level: Line['level']) =>
    (details: Record<string, unknown>, message: string): void => {
      lines.push({ level, message, details });
    };
  const log = { info: at('info'), warn: at('warn'), error: at('error') } as unknown as Logger;
  return { log, lines };
}

/** A clock that moves only when the poller sleeps; `onSleep` sees the time after each wait. */
function fakeClock(onSleep: (elapsedMs: number) => void) {
  const start = Date.parse('2026-03-01T12:00:00Z');
  let t = start;
  return {
    elapsed: () => t - start,
    now: () => new Date(t),
    sleep: (ms: number, signal?: AbortSignal) => {
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      t += ms;
      onSleep(t - start);
      return Promise.resolve();
    },
  };
}

describe('telegram updates poller, while Telegram is down', () => {
  it('logs when polling fails, every 10 minutes while it stays down, and when it works again', async () => {
    const downForMs = 25 * 60_000;
    const { log, lines } = recordingLog();
    const clock = fakeClock((elapsed) => {
      if (elapsed >= downForMs) fake.setDown(false);
    });
    fake.setDown(true);
    poller = telegramOnlyPoller(
      createTelegramClient({ token: fake.token, baseUrl: fake.baseUrl }),
      { log, timeoutSeconds: 1, now: clock.now, sleep: clock.sleep },
    );
    poller.start();
    await expect
      .poll(() => lines.map((line) => line.message), { timeout: 15_000 })
      .toContain(TELEGRAM_POLL_RECOVERED);

    // 1 when it failed, 2 while it stayed down (at 10 and 20 minutes), 1 when it worked again.
    expect(lines.map(({ level, message }) => [level, message])).toEqual([
      ['warn', TELEGRAM_POLL_FAILED],
      ['warn', TELEGRAM_POLL_STILL_FAILING],
      ['warn', TELEGRAM_POLL_STILL_FAILING],
      ['info', TELEGRAM_POLL_RECOVERED],
    ]);
    const [failed, first, second, recovered] = lines.map((line) => line.details);
    // The first line has the error (its stack as a field); the others say how long and how often.
    expect(failed).toMatchObject({ step: 'deleteWebhook', err: expect.any(Error) });
    expect(first).not.toHaveProperty('err');
    expect(first).toMatchObject({ downFor: '10 min', error: expect.any(String) });
    expect(first!.downForMs).toBeGreaterThanOrEqual(TELEGRAM_POLL_DOWN_REPORT_MS);
    expect(second!.downForMs).toBeGreaterThanOrEqual(2 * TELEGRAM_POLL_DOWN_REPORT_MS);
    expect(second!.tries).toBeGreaterThan(first!.tries as number);
    expect(recovered).toMatchObject({ downFor: '25 min' });
    expect(recovered!.downForMs).toBeGreaterThanOrEqual(downForMs);
    // Every try but the last (which worked) is counted, and each was a request to Telegram.
    const failedRequests = fake.requests.filter((request) => request.status >= 500).length;
    expect(recovered!.tries).toBe(failedRequests);
    expect(failedRequests).toBeGreaterThan(40);
  });
});
