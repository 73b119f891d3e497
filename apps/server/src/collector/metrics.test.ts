import type { XMetricRefreshPreset } from '@perch/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { DIALECTS, createTestDb, type TestDb } from '../../test/helpers.js';
import { makeTweet } from '../../test/factories.js';
import { addHandle } from '../modules/handles/handles.service.js';
import { upsertTweets } from '../modules/tweets/tweets.repository.js';
import { insertUser } from '../modules/users/users.repository.js';
import { CollectorEvents } from '../domain/collector-events.js';
import type { SourceTweet, TweetSource } from '../domain/tweet-source.js';
import { createDemoSource } from '../sources/index.js';
import type { CollectorContext } from './context.js';
import { runMetricRefresh } from './metrics.js';

/** 2026-06-01 23:30 UTC: half an hour before a UTC day ends. */
const LATE = Date.UTC(2026, 5, 1, 23, 30);
const HOUR = 3_600_000;

describe.each(DIALECTS)('metric refresh presets [%s]', (dialect) => {
  let db: TestDb | undefined;

  afterEach(async () => {
    await db?.dispose();
    db = undefined;
  });

  /**
   * A followed handle with two posts whose readings are due by 00:30 UTC on June 2: one of June 1
   * (22:00; its 1 h reading, late, slipped past midnight) and one of June 2 (00:00). The round
   * runs at 00:30 under `preset`; answers which ids it read and each post's next reading.
   */
  async function roundAtHalfPastMidnight(preset: XMetricRefreshPreset) {
    const testDb = (db = await createTestDb(dialect));
    const user = await insertUser(testDb.db, {
      username: 'metrics_mia',
      email: 'mia@example.com',
      passwordHash: 'x',
      isAdmin: false,
      isSuperAdmin: false,
      createdAt: new Date(LATE).toISOString(),
    });
    const handle = await addHandle(testDb, undefined, user, {
      username: 'night_owl',
      backfillDays: 1,
      now: new Date(LATE),
    });
    const due = new Date(LATE + HOUR).toISOString();
    const yesterday = makeTweet({ createdAt: new Date(LATE - 1.5 * HOUR).toISOString() });
    const today = makeTweet({ createdAt: new Date(LATE + 0.5 * HOUR).toISOString() });
    await upsertTweets(testDb.db, handle.id, [yesterday, today], new Date(LATE).toISOString(), {
      metricsNextAt: () => due,
    });
    const read: string[] = [];
    const demo = createDemoSource({ pageDelayMs: 0 });
    const source: TweetSource = {
      ...demo,
      tweetsByIds: (ids): Promise<SourceTweet[]> => {
        read.push(...ids);
        return Promise.resolve(
          [yesterday, today]
            .filter((tweet) => ids.includes(tweet.id))
            .map((tweet) => ({ ...tweet, likeCount: tweet.likeCount + 1 })),
        );
      },
    };
    const ctx: CollectorContext = {
      db: testDb,
      source,
      events: new CollectorEvents(),
      log: { info: () => {}, warn: () => {}, error: () => {} },
      now: () => new Date(LATE + HOUR),
      monitorIntervalMs: 60_000,
      collectionPaused: () => false,
      profileRefreshMs: 15 * 60_000,
      blockSource: async () => {},
      metricRefresh: preset,
    };
    const requests = await runMetricRefresh(ctx, new AbortController().signal);
    const rows = await testDb.db
      .selectFrom('tweets')
      .select(['tweet_id', 'metrics_next_at'])
      .where('handle_id', '=', handle.id)
      .execute();
    const next = Object.fromEntries(rows.map((row) => [row.tweet_id, row.metrics_next_at]));
    return { requests, read, next: { yesterday: next[yesterday.id], today: next[today.id] } };
  }

  it('standard reads both posts and keeps them on the schedule', async () => {
    const { requests, read, next } = await roundAtHalfPastMidnight('standard');
    expect(requests).toBe(1);
    expect(read).toHaveLength(2);
    // June 1 22:00 + 3 h; June 2 00:00 + 1 h.
    expect(next).toEqual({
      yesterday: '2026-06-02T01:00:00.000Z',
      today: '2026-06-02T01:00:00.000Z',
    });
  });

  it("economy drops the reading past its post's UTC day unread and keeps the other", async () => {
    const { requests, read, next } = await roundAtHalfPastMidnight('economy');
    expect(requests).toBe(1);
    expect(read).toHaveLength(1);
    expect(next).toEqual({ yesterday: null, today: '2026-06-02T01:00:00.000Z' });
  });
});
