/**
 * Helpers of the notification journeys: the server's loopback Telegram and Discord fakes, run in
 * this process so the test can read what "Telegram" received (with the server environment that
 * delivers to them), and a look into the demo source's future to pick a handle that is about to
 * post.
 *
 * Both come from the server workspace on purpose: the fakes are the ones the server's own tests use
 * (docs/spec-notes.md, Fakes), and the demo source is a pure function of handle and time ("two
 * processes agree on every tweet"), so the tweets it predicts here are the ones the server will
 * find.
 */
/* eslint-disable import-x/no-restricted-paths -- test harness: runs the server's fakes in-process */
import { createDemoSource, demoUserId } from '../../server/src/sources/demo-source';
import {
  startFakeTelegramServer,
  type FakeTelegramServer,
} from '../../server/test/fakes/fake-telegram-server';
import {
  startFakeDiscordServer,
  type FakeDiscordServer,
} from '../../server/test/fakes/fake-discord-server';
/* eslint-enable import-x/no-restricted-paths */
import type { Locator, Page } from '@playwright/test';
import { servePerchWith } from './journey-servers';
import { addHandleByApi } from './perch-api';

export { startFakeDiscordServer, startFakeTelegramServer };
export type { FakeDiscordServer, FakeTelegramServer };

/**
 * Demo handles starting with `bench` post about 2,000 tweets a day (demo-source.ts). A hundred of
 * them: at 20 instants over a day, the soonest second post (25 s after a first one 30 s ahead at
 * least) came 56-65 s ahead; 56-75 s with 24. Picking among them takes about 13 ms.
 */
export const BUSY_DEMO_HANDLES: readonly string[] = Array.from(
  { length: 100 },
  (_, index) => `bench_${index}`,
);

/** The server's environment that delivers to the fake Telegram. */
export function telegramEnv(fake: FakeTelegramServer): Record<string, string> {
  return { TELEGRAM_BOT_TOKEN: fake.token, TELEGRAM_API_BASE_URL: fake.baseUrl };
}

/** The server's environment that delivers to the fake Discord. */
export function discordEnv(fake: FakeDiscordServer): Record<string, string> {
  return { DISCORD_BOT_TOKEN: fake.token, DISCORD_API_BASE_URL: fake.baseUrl };
}

/**
 * One fake Telegram (with the bot `botUsername`) and one Perch server delivering to it, for every
 * test of the file. The server monitors at the shortest interval it accepts: new tweets are found
 * within seconds.
 */
export function serveTelegramMonitoring(botUsername: string) {
  return servePerchWith(
    () => startFakeTelegramServer({ botUsername }),
    (telegram) => ({
      ...telegramEnv(telegram),
      MONITOR_INTERVAL_SECONDS: '5',
      DEMO_PAGE_DELAY_MS: '0',
    }),
  );
}

export interface NotifyFakes {
  telegram: FakeTelegramServer;
  discord: FakeDiscordServer;
  /** The server's environment that delivers to both. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** The fake Telegram (with the bot `botUsername`) and the fake Discord, started together. */
export async function startNotifyFakes(botUsername: string): Promise<NotifyFakes> {
  const telegram = await startFakeTelegramServer({ botUsername });
  const discord = await startFakeDiscordServer();
  return {
    telegram,
    discord,
    env: { ...telegramEnv(telegram), ...discordEnv(discord) },
    async close() {
      await telegram.close();
      await discord.close();
    },
  };
}

export interface DemoTweet {
  /** Epoch ms. */
  at: number;
  text: string;
  photoUrls: string[];
}

/** A demo handle's tweets between two instants, oldest first (the demo source is pure). */
export async function demoTweets(
  handle: string,
  fromMs: number,
  toMs: number,
): Promise<DemoTweet[]> {
  const source = createDemoSource({ pageDelayMs: 0, now: () => toMs });
  const tweets: DemoTweet[] = [];
  let cursor: string | undefined;
  do {
    const page = await source.timeline({
      xUserId: demoUserId(handle),
      startTime: new Date(fromMs).toISOString(),
      endTime: new Date(toMs).toISOString(),
      cursor,
      maxResults: 100,
    });
    for (const tweet of page.tweets) {
      tweets.push({
        at: Date.parse(tweet.createdAt),
        text: tweet.text,
        photoUrls: tweet.media.flatMap((m) => (m.type === 'photo' && m.url ? [m.url] : [])),
      });
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return tweets.sort((a, b) => a.at - b.at);
}

export interface BusyHandle {
  handle: string;
  /** Epoch ms of its tweets inside the window, oldest first. */
  tweetTimes: number[];
  /** The longest stretch without a tweet inside the window, ms. */
  longestGapMs: number;
}

/**
 * Of `candidates`, the handle whose tweets between `fromMs` and `toMs` leave the shortest
 * silence: the demo source is asked with its clock set to `toMs`, so it tells the future.
 */
export async function pickBusyDemoHandle(
  candidates: readonly string[],
  fromMs: number,
  toMs: number,
): Promise<BusyHandle> {
  let best: BusyHandle | null = null;
  for (const handle of candidates) {
    const tweetTimes = (await demoTweets(handle, fromMs, toMs)).map((tweet) => tweet.at);
    const edges = [fromMs, ...tweetTimes, toMs];
    let longestGapMs = 0;
    for (let i = 1; i < edges.length; i++) {
      longestGapMs = Math.max(longestGapMs, edges[i]! - edges[i - 1]!);
    }
    if (!best || longestGapMs < best.longestGapMs) best = { handle, tweetTimes, longestGapMs };
  }
  if (!best) throw new Error('no candidate handles');
  return best;
}

/**
 * Follows the busiest of BUSY_DEMO_HANDLES between `fromMs` and `toMs` from now (picked as
 * pickBusyDemoHandle does) with a one-day backfill, so monitoring starts quickly; returns it
 * with the handle's id.
 */
export async function followBusyDemoHandle(
  page: Page,
  origin: string,
  fromMs: number,
  toMs: number,
): Promise<BusyHandle & { id: number }> {
  const now = Date.now();
  const busy = await pickBusyDemoHandle(BUSY_DEMO_HANDLES, now + fromMs, now + toMs);
  return { ...busy, id: await addHandleByApi(page, origin, busy.handle, 1) };
}

/**
 * Follows the one of BUSY_DEMO_HANDLES whose second post comes soonest, where the first is at
 * least `fromMs` from now and the second at least `gapMs` after it (within `toMs` from now), with
 * a one-day backfill; returns the handle and its id.
 */
export async function followDemoHandlePostingTwice(
  page: Page,
  origin: string,
  { fromMs, gapMs, toMs }: { fromMs: number; gapMs: number; toMs: number },
): Promise<{ handle: string; id: number }> {
  const now = Date.now();
  let best: { handle: string; second: number } | undefined;
  for (const handle of BUSY_DEMO_HANDLES) {
    const times = (await demoTweets(handle, now + fromMs, now + toMs)).map((tweet) => tweet.at);
    const first = times[0];
    const second = first === undefined ? undefined : times.find((at) => at >= first + gapMs);
    if (second !== undefined && (!best || second < best.second)) best = { handle, second };
  }
  if (!best) throw new Error('no demo handle posts twice in the time asked for');
  return { handle: best.handle, id: await addHandleByApi(page, origin, best.handle, 1) };
}

/** The newest row of `@handle` in the Settings page's delivery log. */
export function deliveryRow(page: Page, handle: string): Locator {
  return page
    .getByTestId('delivery-log')
    .getByTestId('delivery-row')
    .filter({ hasText: `@${handle}` })
    .first();
}
