import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, createTestDb, type TestDb } from '../../test/helpers.js';
import { makeTweet } from '../../test/notify-helpers.js';
import { insertHandle } from '../modules/handles/handles.repository.js';
import { upsertTweets } from '../modules/tweets/tweets.repository.js';
import { followerCounts, lastPostTimes } from './handle-state.repository.js';
import { handleCondition } from './handle-rules.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const LOOKBACK = 2 * DAY;
const NOW = Date.parse('2026-03-10T12:00:00.000Z');
const RULE = { type: 'follower_change', direction: 'either', accounts: 1 } as const;

/** What the follower rule decides from these counts (handle-rules.ts). */
const decided = (counts: { takenAt: number; followers: number }[]) =>
  handleCondition(RULE, { profileSnapshots: counts, lastPostAt: null }, NOW);

describe.each(DIALECTS)('handle state for the handle rules (%s)', (dialect) => {
  let db: TestDb;
  let handleId: number;
  beforeAll(async () => {
    db = await createTestDb(dialect);
    handleId = (await insertHandle(db.db, { username: 'counted', backfillDays: 7, now: 'x' })).id;
  });
  afterAll(async () => {
    await db?.dispose();
  });

  it('gives the follower rule the same two counts as every snapshot of the lookback would', async () => {
    // Snapshots at whole minutes from 3 days ago to an hour ahead (a clock ahead of this one),
    // some on the exact day boundary of others, some at the same time.
    const snapshot = fc.record({
      minutes: fc.integer({ min: -3 * 24 * 60, max: 60 }),
      followers: fc.integer({ min: 0, max: 5 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(snapshot, { maxLength: 12 }), async (snapshots) => {
        await db.db.deleteFrom('profile_snapshots').execute();
        const rows = snapshots.map((s) => ({
          handle_id: handleId,
          taken_at: new Date(NOW + s.minutes * MINUTE).toISOString(),
          followers: s.followers,
          following: 1,
          tweet_count: 1,
          like_count: 1,
        }));
        if (rows.length > 0) await db.db.insertInto('profile_snapshots').values(rows).execute();
        // As the sweep read them before: every snapshot of the lookback.
        const all = rows
          .filter((row) => row.taken_at >= new Date(NOW - LOOKBACK).toISOString())
          .map((row) => ({ takenAt: Date.parse(row.taken_at), followers: row.followers }));
        const two = (await followerCounts(db.db, [handleId], NOW, LOOKBACK)).map((row) => ({
          takenAt: Date.parse(row.taken_at),
          followers: row.followers,
        }));
        // Counts taken at the same time may stand in either order: compare what they decide
        // where the times are distinct, and the times chosen always.
        const full = decided(all);
        const reduced = decided(two);
        expect(reduced.met).toBe(full.met);
        expect(reduced.numbers.taken_at).toBe(full.numbers.taken_at);
        expect(reduced.numbers.before_taken_at).toBe(full.numbers.before_taken_at);
        const times = new Set(rows.map((row) => row.taken_at));
        if (times.size === rows.length) expect(reduced).toEqual(full);
      }),
      { numRuns: dialect === 'postgres' ? 25 : 60, seed: 20261129 },
    );
  });

  it('reads each handle alone, and knows when each last posted', async () => {
    await db.db.deleteFrom('profile_snapshots').execute();
    const other = (await insertHandle(db.db, { username: 'other', backfillDays: 7, now: 'x' })).id;
    const silent = (await insertHandle(db.db, { username: 'silent', backfillDays: 7, now: 'x' }))
      .id;
    const at = (hoursAgo: number) => new Date(NOW - hoursAgo * HOUR).toISOString();
    const snap = (id: number, hoursAgo: number, followers: number) => ({
      handle_id: id,
      taken_at: at(hoursAgo),
      followers,
      following: 1,
      tweet_count: 1,
      like_count: 1,
    });
    await db.db
      .insertInto('profile_snapshots')
      .values([
        snap(handleId, 30, 10),
        snap(handleId, 20, 11),
        snap(handleId, 2, 15),
        snap(other, 1, 7),
      ])
      .execute();
    const counts = await followerCounts(db.db, [handleId, other, silent], NOW, LOOKBACK);
    expect(
      counts
        .map((row) => [row.handle_id, row.taken_at, row.followers])
        .sort((a, b) => String(a).localeCompare(String(b))),
    ).toEqual(
      [
        [handleId, at(20), 11],
        [handleId, at(2), 15],
        [other, at(1), 7],
      ].sort((a, b) => String(a).localeCompare(String(b))),
    );

    await upsertTweets(
      db.db,
      other,
      [
        makeTweet({ createdAt: at(50) }),
        makeTweet({ createdAt: at(5) }),
        makeTweet({ createdAt: at(9) }),
      ],
      new Date(NOW).toISOString(),
    );
    const last = await lastPostTimes(db.db, [handleId, other, silent]);
    expect(new Map(last.map((row) => [row.handle_id, row.last]))).toEqual(
      new Map([
        [handleId, null],
        [other, at(5)],
        [silent, null],
      ]),
    );
  });
});
