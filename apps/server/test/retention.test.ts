/**
 * The daily clean-up deletes the rows of the log-like tables older than their setting, keeps
 * everything newer (and every waiting delivery and live session), in batches, once a day over
 * all workers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLocalCluster } from '../src/cluster/cluster.js';
import type { OutboxStatus } from '../src/db/types.js';
import type { Logger } from '../src/lib/logger.js';
import { insertHandle } from '../src/modules/handles/handles.repository.js';
import { RetentionJob } from '../src/modules/retention/retention-job.js';
import {
  retentionPolicy,
  type RetentionPolicy,
} from '../src/modules/retention/retention-policy.js';
import { purgeExpiredRows } from '../src/modules/retention/retention.service.js';
import { insertUser } from '../src/modules/users/users.repository.js';
import { DIALECTS, createTestDb, type TestDb } from './helpers.js';

const NOW = new Date('2026-06-15T12:00:00.000Z');
const DAY_MS = 24 * 60 * 60 * 1000;
const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY_MS).toISOString();
const POLICY: RetentionPolicy = retentionPolicy({
  RETENTION_SECURITY_EVENTS_DAYS: 90,
  RETENTION_LOGIN_HISTORY_DAYS: 90,
  RETENTION_DELIVERY_LOG_DAYS: 30,
  RETENTION_X_BILLED_READS_DAYS: 70,
});

describe.each(DIALECTS)('retention (%s)', (dialect) => {
  let db: TestDb;

  afterEach(async () => {
    await db.dispose();
  });

  async function seed(): Promise<void> {
    const user = await insertUser(db.db, {
      username: 'keeper',
      email: 'keeper@example.com',
      passwordHash: 'x',
      isAdmin: false,
      isSuperAdmin: false,
      createdAt: daysAgo(400),
    });
    const handle = await insertHandle(db.db, {
      username: 'nasa',
      backfillDays: 7,
      now: daysAgo(400),
    });
    const events = [...Array<number>(25).fill(91), 89, 10, 0];
    await db.db
      .insertInto('security_events')
      .values(
        events.map((age, i) => ({
          user_id: user.id,
          event_type: 'login_failed',
          severity: 'medium' as const,
          description: `event ${i}`,
          created_at: daysAgo(age),
        })),
      )
      .execute();
    const attempts = [...Array<number>(12).fill(120), 30];
    await db.db
      .insertInto('login_attempts')
      .values(
        attempts.map((age) => ({
          login: 'keeper',
          user_id: user.id,
          ip: '10.0.0.1',
          user_agent: null,
          success: false,
          created_at: daysAgo(age),
        })),
      )
      .execute();
    const session = (id: string, created: number, expires: number, revoked: number | null) => ({
      id,
      user_id: user.id,
      created_at: daysAgo(created),
      last_seen_at: daysAgo(created),
      expires_at: daysAgo(expires),
      ip: null,
      user_agent: null,
      remember_me: false,
      revoked_at: revoked === null ? null : daysAgo(revoked),
    });
    await db.db
      .insertInto('sessions')
      .values([
        session('expired-long-ago', 200, 150, null),
        session('revoked-long-ago', 200, -10, 100),
        session('expired-lately', 40, 20, null),
        session('revoked-lately', 40, -10, 5),
        session('live-and-old', 300, -30, null),
      ])
      .execute();
    const delivery = (tweetId: string, status: OutboxStatus, age: number) => ({
      user_id: user.id,
      handle_id: handle.id,
      tweet_id: tweetId,
      channel: 'telegram' as const,
      status,
      next_attempt_at: daysAgo(age),
      last_error: null,
      created_at: daysAgo(age),
      sent_at: status === 'sent' ? daysAgo(age) : null,
    });
    await db.db
      .insertInto('notification_outbox')
      .values([
        delivery('1', 'sent', 45),
        delivery('2', 'failed', 31),
        delivery('3', 'expired', 60),
        delivery('4', 'filtered', 40),
        delivery('5', 'pending', 45),
        delivery('6', 'sent', 29),
      ])
      .execute();
    // 70 days before June 15 is April 6.
    await db.db
      .insertInto('x_billed_reads')
      .values(
        ['2026-04-04', '2026-04-05', '2026-04-06', '2026-06-15'].flatMap((day) =>
          ['a', 'b', 'c'].map((id) => ({
            day,
            kind: 'post' as const,
            resource_id: id,
            handle_id: handle.id,
            read_at: `${day}T10:00:00.000Z`,
          })),
        ),
      )
      .execute();
  }

  const remaining = async () => ({
    events: (
      await db.db.selectFrom('security_events').select('description').orderBy('id').execute()
    ).map((row) => row.description),
    attempts: (await db.db.selectFrom('login_attempts').select('id').execute()).length,
    sessions: (await db.db.selectFrom('sessions').select('id').orderBy('id').execute()).map(
      (row) => row.id,
    ),
    deliveries: (
      await db.db.selectFrom('notification_outbox').select('tweet_id').orderBy('tweet_id').execute()
    ).map((row) => row.tweet_id),
    readDays: [
      ...new Set(
        (await db.db.selectFrom('x_billed_reads').select('day').orderBy('day').execute()).map(
          (row) => row.day,
        ),
      ),
    ],
  });

  it('deletes what is older than each setting, in batches, and keeps the rest', async () => {
    db = await createTestDb(dialect);
    await seed();
    const result = await purgeExpiredRows(db, POLICY, { now: NOW, batchSize: 10, pauseMs: 0 });

    expect(result.deleted).toEqual({
      security_events: 25,
      login_attempts: 12,
      sessions: 2,
      notification_outbox: 4,
      x_billed_reads: 6,
    });
    // Batches of 10: 25 events take 3 deletes, 12 attempts 2, and every other table 1.
    expect(result.batches).toBe(3 + 2 + 1 + 1 + 1);
    expect(await remaining()).toEqual({
      events: ['event 25', 'event 26', 'event 27'],
      attempts: 1,
      sessions: ['expired-lately', 'live-and-old', 'revoked-lately'],
      // The pending delivery waits, however old; the finished ones of the last 30 days stay.
      deliveries: ['5', '6'],
      readDays: ['2026-04-06', '2026-06-15'],
    });

    // Nothing left to delete: one statement per table.
    const again = await purgeExpiredRows(db, POLICY, { now: NOW, batchSize: 10, pauseMs: 0 });
    expect(again.batches).toBe(5);
    expect(Object.values(again.deleted).every((count) => count === 0)).toBe(true);
  });

  it('keeps a table for ever when its setting is 0', async () => {
    db = await createTestDb(dialect);
    await seed();
    const result = await purgeExpiredRows(
      db,
      { ...POLICY, security_events: 0, x_billed_reads: 0 },
      { now: NOW, pauseMs: 0 },
    );
    expect(result.deleted.security_events).toBeUndefined();
    expect(result.deleted.x_billed_reads).toBeUndefined();
    const left = await remaining();
    expect(left.events).toHaveLength(28);
    expect(left.readDays).toHaveLength(4);
    expect(left.attempts).toBe(1);
  });

  it('cleans up once a day between the workers of a deployment', async () => {
    db = await createTestDb(dialect);
    await seed();
    const cluster = createLocalCluster();
    let clock = NOW;
    const job = (name: string) =>
      new RetentionJob({
        db,
        policy: POLICY,
        cluster,
        now: () => clock,
        purge: { batchSize: 10, pauseMs: 0 },
        log: {
          info: () => {},
          warn: (_details: unknown, message?: string) => {
            warnings.push(`${name}: ${message ?? ''}`);
          },
          error: () => {},
        } as unknown as Logger,
      });
    const warnings: string[] = [];
    const [first, second] = [job('first'), job('second')];

    // Both look at once: one cleans up, the other finds the lock taken.
    const [a, b] = await Promise.all([first.runIfDue(), second.runIfDue()]);
    expect([a, b].filter((result) => result !== null)).toHaveLength(1);
    expect((a ?? b)?.deleted.security_events).toBe(25);
    // An hour later the day's clean-up is done: neither runs.
    clock = new Date(NOW.getTime() + 60 * 60 * 1000);
    expect(await second.runIfDue()).toBeNull();
    expect(await first.runIfDue()).toBeNull();
    // A day later it is due again, for whichever looks first.
    clock = new Date(NOW.getTime() + DAY_MS);
    await db.db
      .insertInto('security_events')
      .values({
        user_id: null,
        event_type: 'rate_limited',
        severity: 'low',
        description: 'old',
        created_at: daysAgo(100),
      })
      .execute();
    expect((await second.runIfDue())?.deleted.security_events).toBe(1);
    expect(warnings).toEqual([]);
    await Promise.all([first.stop(), second.stop()]);
    await cluster.close();
  });
});
