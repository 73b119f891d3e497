/**
 * The server's loopback fake of the X API v2, run in the test's process so a journey can read
 * what "X" served and billed, and turn its credits off. It is the fake the server's own tests
 * use, which follows X's contracts (pay-per-use billing, 402 CreditsDepleted, rate limits).
 */
import { expect, type Locator, type Page } from '@playwright/test';
/* eslint-disable import-x/no-restricted-paths -- test harness: runs the server's fake in-process */
import {
  startFakeXServer,
  type FakeXServer,
  type FakeXTweet,
} from '../../server/test/fakes/fake-x-server';
/* eslint-enable import-x/no-restricted-paths */
import { registerSuperAdmin, type AccountOptions } from './accounts';
import { sidebarStatus } from './handle-rows';
import { addHandleByApi } from './perch-api';
import type { PerchServer } from './perch-server';

export type { FakeXServer };

/** `count` posts spread over the last `days` days, newest first, with a hashtag and metrics. */
function recentPosts(seed: number, count: number, days: number): FakeXTweet[] {
  const now = Date.now();
  return Array.from({ length: count }, (_, index) => ({
    id: String(1_900_000_000_000_000_000n + BigInt(seed) * 100_000n + BigInt(count - index)),
    text: `Update ${index + 1} from the field #perch`,
    created_at: new Date(now - 120_000 - (index * days * 86_400_000) / count).toISOString(),
    lang: 'en',
    public_metrics: {
      like_count: (index * 7) % 90,
      retweet_count: index % 11,
      reply_count: index % 5,
      quote_count: index % 3,
      impression_count: 1_000 + index * 13,
    },
  }));
}

/** The fake X with two accounts that posted recently: a busy one and a quiet one. */
export async function startFakeXWithAccounts(): Promise<FakeXServer> {
  const fake = await startFakeXServer();
  const busy = fake.addUser({ username: 'OrbitNews', name: 'Orbit News', followersCount: 48_210 });
  fake.addTweets(busy.id, recentPosts(1, 180, 3));
  const quiet = fake.addUser({ username: 'TidePools', name: 'Tide Pools', followersCount: 912 });
  fake.addTweets(quiet.id, recentPosts(2, 24, 3));
  return fake;
}

/** The server's environment that collects from `fake`. */
export function xApiEnv(fake: FakeXServer): Record<string, string> {
  return {
    TWEET_SOURCE: 'x-api',
    X_BEARER_TOKEN: fake.bearerToken,
    X_API_BASE_URL: fake.baseUrl,
    MONITOR_INTERVAL_SECONDS: '5',
  };
}

/**
 * On a server collecting from `fake`: registers the super admin `hedy`, follows TidePools until
 * it is Ready, then has X refuse the bearer token and waits until the sidebar badge says Waiting
 * for X. Returns that badge.
 */
export async function collectThenRefuseCredentials(
  page: Page,
  server: PerchServer,
  fake: FakeXServer,
  backfillDays: number,
  account: AccountOptions = {},
): Promise<Locator> {
  await registerSuperAdmin(page, server, 'hedy', account);
  await addHandleByApi(page, server.origin, 'TidePools', backfillDays);
  await page.goto(`${server.origin}/dashboard/?handle=TidePools`);
  const badge = sidebarStatus(page, 'TidePools');
  await expect(badge).toHaveText('Ready', { timeout: 30_000 });
  fake.setAuthFailure(401);
  await expect(badge).toHaveText('Waiting for X', { timeout: 45_000 });
  return badge;
}
