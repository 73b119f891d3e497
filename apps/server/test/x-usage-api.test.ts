import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_MESSAGES, MESSAGES, xUsageSummarySchema, type XUsageSummary } from '@perch/shared';
import { buildApp } from '../src/app.js';
import { Collector } from '../src/collector/collector.js';
import { createDemoSource } from '../src/sources/index.js';
import type { BilledRead, RateStatus, TweetSource } from '../src/domain/tweet-source.js';
import type { Db } from '../src/db/index.js';
import { insertHandle } from '../src/modules/handles/handles.repository.js';
import { writeXApiStatus } from '../src/modules/x-usage/x-api-status.repository.js';
import {
  XUsageMeter,
  createXUsageMeter,
  projectMonthMicros,
} from '../src/modules/x-usage/x-usage.service.js';
import { dataOf, expectError } from './assertions.js';
import { DIALECTS, TestClient, buildTestApp, createTestDb, type TestDb } from './helpers.js';

const URL = '/api/v1/admin/x-usage';
const X_API_ENV = { TWEET_SOURCE: 'x-api', X_BEARER_TOKEN: 'test-bearer' };

const RATE_STATUS: RateStatus = {
  endpoints: [
    {
      endpoint: 'users/:id/tweets',
      limit: 900,
      remaining: 880,
      resetAt: '2026-03-10T12:15:00.000Z',
    },
    { endpoint: 'tweets', limit: 450, remaining: null, resetAt: null },
  ],
  appDay: { limit: 100_000, remaining: 99_120, resetAt: '2026-03-11T09:00:00.000Z' },
};

/** The demo source standing in for X: it names itself x-api and reports rate limits. */
function xApiStandIn(): TweetSource {
  return {
    ...createDemoSource({ pageDelayMs: 0 }),
    name: 'x-api',
    rateStatus: () => RATE_STATUS,
  };
}

const posts = (ids: string[], owner: string | null = null): BilledRead[] =>
  ids.map((id) => ({ kind: 'post', id, ownerXUserId: owner }));
const users = (ids: string[], owner: string | null = null): BilledRead[] =>
  ids.map((id) => ({ kind: 'user', id, ownerXUserId: owner }));
const numbered = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, index) => `${prefix}${index + 1}`);

async function addHandle(db: Db, username: string, xUserId: string): Promise<number> {
  const now = new Date().toISOString();
  const handle = await insertHandle(db.db, { username, backfillDays: 7, now });
  await db.db
    .updateTable('handles')
    .set({ x_user_id: xUserId })
    .where('id', '=', handle.id)
    .execute();
  return handle.id;
}

describe.each(DIALECTS)('X API usage [%s]', (dialect) => {
  let db: TestDb | undefined;
  let app: FastifyInstance | undefined;
  let clock = new Date('2026-03-10T12:00:00.000Z');
  const now = () => clock;

  afterEach(async () => {
    await app?.close();
    await db?.dispose();
    app = undefined;
    db = undefined;
    clock = new Date('2026-03-10T12:00:00.000Z');
  });

  /** A fresh database set up for the x-api source, with `env` on top. */
  async function freshDb(env: Record<string, string> = {}): Promise<TestDb> {
    db = await createTestDb(dialect, { ...X_API_ENV, ...env });
    return db;
  }

  /** The app with a meter on the pinned clock and an unstarted collector on a stand-in source. */
  async function usageApp(env: Record<string, string> = {}) {
    const testDb = await freshDb(env);
    const meter = createXUsageMeter(testDb, testDb.config, { now });
    const collector = new Collector({
      db: testDb,
      source: xApiStandIn(),
      monitorIntervalSeconds: 60,
    });
    app = await buildApp({
      config: testDb.config,
      db: testDb,
      collector,
      xUsage: meter,
      logger: false,
    });
    await app.ready();
    const admin = new TestClient(app);
    await admin.register(testDb, 'usage_admin', 'admin');
    const summary = async (): Promise<XUsageSummary> => {
      const response = await admin.get(URL);
      expect(response.statusCode, response.body).toBe(200);
      return dataOf(response, xUsageSummarySchema);
    };
    return { db: testDb, meter, admin, summary };
  }

  describe('GET /admin/x-usage', () => {
    it('answers 401 signed out, 403 for a plain user and the summary for an admin', async () => {
      const { db: testDb } = await usageApp();
      expectError(await new TestClient(app!).get(URL), 401, {
        message: MESSAGES.notAuthenticated,
      });
      const user = new TestClient(app!);
      await user.register(testDb, 'usage_user');
      expectError(await user.get(URL), 403, { message: ADMIN_MESSAGES.adminRequired });
      const superAdmin = new TestClient(app!);
      await superAdmin.register(testDb, 'usage_root', 'superadmin');
      const response = await superAdmin.get(URL);
      expect(response.statusCode, response.body).toBe(200);
      expect(dataOf(response, xUsageSummarySchema).source).toBe('x-api');
    });

    it('starts at zero, with the prices, no limit, ok credentials and the rate limits of the source', async () => {
      const { summary } = await usageApp();
      const data = await summary();
      expect(data).toEqual({
        source: 'x-api',
        generated_at: '2026-03-10T12:00:00.000Z',
        today: { day: '2026-03-10', post_reads: 0, user_reads: 0, usd: 0 },
        month: { month: '2026-03', post_reads: 0, user_reads: 0, usd: 0, projected_usd: 0 },
        handles: [],
        prices: { post_read_usd: 0.005, user_read_usd: 0.01 },
        budget: {
          daily_limit_usd: null,
          paused: false,
          cut: [],
          resumes_at: '2026-03-11T00:00:00.000Z',
        },
        credentials: { state: 'ok', detail: null, since: null, next_probe_at: null },
        // The source's own report, passed through.
        rate_status: { endpoints: RATE_STATUS.endpoints, app_day: RATE_STATUS.appDay },
        // The default preset and its modelled cost: 10 posts x 3 billed days + 1 user, 30 days.
        metric_refresh: {
          preset: 'standard',
          typical_handle: {
            posts_per_day: 10,
            post_reads_per_day: 30,
            user_reads_per_day: 1,
            month_usd: 4.8,
          },
        },
      });
    });

    it('tells the metric-refresh preset and what a typical handle costs under it', async () => {
      const { summary } = await usageApp({
        X_METRIC_REFRESH: 'economy',
        X_PRICE_POST_READ_USD: '0.006',
      });
      // Economy: each post billed once, so 30 x (10 x $0.006 + $0.01) = $2.10.
      expect((await summary()).metric_refresh).toEqual({
        preset: 'economy',
        typical_handle: {
          posts_per_day: 10,
          post_reads_per_day: 10,
          user_reads_per_day: 1,
          month_usd: 2.1,
        },
      });
    });

    it('counts a post or user read twice on one UTC day once, and on two days twice', async () => {
      const { meter, summary } = await usageApp();
      await meter.record([...posts(['p1', 'p2']), ...users(['u1'])]);
      await meter.record([...posts(['p1', 'p2', 'p2']), ...users(['u1'])]);
      let data = await summary();
      expect(data.today).toEqual({ day: '2026-03-10', post_reads: 2, user_reads: 1, usd: 0.02 });

      clock = new Date('2026-03-10T23:59:59.999Z');
      await meter.record(posts(['p1']));
      clock = new Date('2026-03-11T00:00:00.000Z');
      await meter.record([...posts(['p1']), ...users(['u1'])]);
      data = await summary();
      expect(data.today).toEqual({ day: '2026-03-11', post_reads: 1, user_reads: 1, usd: 0.015 });
      expect(data.month).toMatchObject({ post_reads: 3, user_reads: 2, usd: 0.035 });
    });

    it("puts the cost on each handle, today's and this month's, the most expensive first", async () => {
      const { db: testDb, meter, summary } = await usageApp();
      const nasa = await addHandle(testDb, 'nasa', '11');
      const spacex = await addHandle(testDb, 'spacex', '12');
      const gone = await addHandle(testDb, 'gone', '13');

      clock = new Date('2026-03-02T08:00:00.000Z');
      await meter.record([...posts(numbered('n', 10), '11'), ...users(['11'], '11')]);
      await meter.record(posts(numbered('g', 4), '13'));
      clock = new Date('2026-03-10T12:00:00.000Z');
      await meter.record([...posts(numbered('s', 3), '12'), ...posts(['n1'], '11')]);
      // Not traced to any handle: the owner is unknown, or no handle has that X id.
      await meter.record([...posts(['x1']), ...users(['99'], '99')]);
      await testDb.db.deleteFrom('handles').where('id', '=', gone).execute();

      const data = await summary();
      expect(data.handles).toEqual([
        {
          handle_id: nasa,
          handle: 'nasa',
          today: { post_reads: 1, user_reads: 0, usd: 0.005 },
          month: { post_reads: 11, user_reads: 1, usd: 0.065 },
        },
        {
          handle_id: null,
          handle: null,
          today: { post_reads: 1, user_reads: 1, usd: 0.015 },
          month: { post_reads: 5, user_reads: 1, usd: 0.035 },
        },
        {
          handle_id: spacex,
          handle: 'spacex',
          today: { post_reads: 3, user_reads: 0, usd: 0.015 },
          month: { post_reads: 3, user_reads: 0, usd: 0.015 },
        },
      ]);
      expect(data.month).toMatchObject({ post_reads: 19, user_reads: 2, usd: 0.115 });
    });

    it('prices reads as the config says, without float drift in the sums', async () => {
      const { meter, summary } = await usageApp({
        X_PRICE_POST_READ_USD: '0.1',
        X_PRICE_USER_READ_USD: '0.2',
      });
      await meter.record([...posts(['p1', 'p2', 'p3']), ...users(['u1'])]);
      const data = await summary();
      expect(data.prices).toEqual({ post_read_usd: 0.1, user_read_usd: 0.2 });
      // 3 x 0.1 is 0.30000000000000004 in floating point; the meter counts micro-dollars.
      expect(data.today.usd).toBe(0.5);
      expect(data.handles[0]?.today.usd).toBe(0.5);
    });

    it("projects this month's cost at the pace so far", async () => {
      const { meter, summary } = await usageApp();
      // 10 of March's 31 days gone: $1.00 so far makes $3.10 by the end of the month.
      clock = new Date('2026-03-11T00:00:00.000Z');
      await meter.record(posts(numbered('p', 200)));
      const data = await summary();
      expect(data.month.usd).toBe(1);
      expect(data.month.projected_usd).toBe(3.1);
    });

    it('reports the daily limit, the work it cuts and when it resumes', async () => {
      const { meter, summary } = await usageApp({ X_DAILY_SPEND_LIMIT_USD: '1' });
      await meter.record(posts(numbered('p', 170)));
      let data = await summary();
      expect(data.budget).toEqual({
        daily_limit_usd: 1,
        paused: false,
        cut: ['metrics'],
        resumes_at: '2026-03-11T00:00:00.000Z',
      });
      await meter.record(posts(numbered('q', 30)));
      data = await summary();
      expect(data.budget).toMatchObject({ paused: true, cut: ['metrics', 'backfill', 'poll'] });
    });

    it('shows the state of the X credentials', async () => {
      const { db: testDb, summary } = await usageApp();
      await writeXApiStatus(testDb.db, {
        state: 'credits',
        detail: 'Your enrolled account does not have any credits to fulfill this request.',
        now: '2026-03-10T11:00:00.000Z',
        nextProbeAt: '2026-03-10T12:05:00.000Z',
      });
      expect((await summary()).credentials).toEqual({
        state: 'credits',
        detail: 'Your enrolled account does not have any credits to fulfill this request.',
        since: '2026-03-10T11:00:00.000Z',
        next_probe_at: '2026-03-10T12:05:00.000Z',
      });
    });

    it('reads the table through a meter of its own when the app was given none', async () => {
      const testDb = await freshDb({ X_PRICE_POST_READ_USD: '0.006' });
      app = await buildApp({ config: testDb.config, db: testDb, logger: false });
      await app.ready();
      // Another process's collector recorded today's reads.
      await new XUsageMeter({
        db: testDb,
        prices: { postReadUsd: 0.006, userReadUsd: 0.01 },
      }).record(posts(['p1', 'p2']));
      const admin = new TestClient(app);
      await admin.register(testDb, 'usage_admin', 'admin');
      const data = dataOf(await admin.get(URL), xUsageSummarySchema);
      expect(data.source).toBe('x-api');
      expect(data.today).toMatchObject({ post_reads: 2, usd: 0.012 });
      expect(data.rate_status).toBeNull();
    });

    it('answers zeros for the demo source', async () => {
      const t = await buildTestApp(dialect, { X_DAILY_SPEND_LIMIT_USD: '2' });
      try {
        await t.collector.stop();
        const admin = new TestClient(t.app);
        await admin.register(t.db, 'usage_admin', 'admin');
        const data = dataOf(await admin.get(URL), xUsageSummarySchema);
        expect(data).toMatchObject({
          source: 'demo',
          today: { post_reads: 0, user_reads: 0, usd: 0 },
          month: { post_reads: 0, user_reads: 0, usd: 0, projected_usd: 0 },
          handles: [],
          prices: { post_read_usd: 0.005, user_read_usd: 0.01 },
          budget: { daily_limit_usd: 2, paused: false, cut: [] },
          credentials: { state: 'ok' },
          rate_status: null,
        });
      } finally {
        await t.close();
      }
    });
  });

  describe('XUsageMeter', () => {
    const meterOn = (testDb: Db, dailyLimitUsd?: number) =>
      new XUsageMeter({
        db: testDb,
        prices: { postReadUsd: 0.005, userReadUsd: 0.01 },
        dailyLimitUsd,
        now,
      });

    async function allowed(meter: XUsageMeter) {
      return {
        metrics: await meter.allows('metrics'),
        backfill: await meter.allows('backfill'),
        poll: await meter.allows('poll'),
      };
    }

    it('cuts metric refresh at 80% of the daily limit, backfill at 90% and new tweets at 100%', async () => {
      const meter = meterOn(await freshDb(), 1);
      // Posts read (named by a prefix), then the day's spend (where checked) and what it allows.
      const steps: [prefix: string, count: number, spent: number | null, allows: object][] = [
        // $0.005 a post: 158 posts are 79% of $1.00.
        ['a', 158, 0.79, { metrics: true, backfill: true, poll: true }],
        ['b', 2, 0.8, { metrics: false, backfill: true, poll: true }],
        ['c', 19, 0.895, { metrics: false, backfill: true, poll: true }],
        ['d', 1, 0.9, { metrics: false, backfill: false, poll: true }],
        ['e', 19, null, { metrics: false, backfill: false, poll: true }],
        ['f', 1, 1, { metrics: false, backfill: false, poll: false }],
      ];
      for (const [prefix, count, spent, allows] of steps) {
        await meter.record(posts(numbered(prefix, count)));
        if (spent !== null) expect(await meter.spentTodayUsd()).toBe(spent);
        expect(await allowed(meter)).toEqual(allows);
      }

      // A new UTC day starts a new budget.
      clock = new Date('2026-03-11T00:00:00.000Z');
      expect(await allowed(meter)).toEqual({ metrics: true, backfill: true, poll: true });
    });

    it('allows everything without a daily limit', async () => {
      const meter = meterOn(await freshDb());
      await meter.record(posts(numbered('p', 1000)));
      expect(await meter.spentTodayUsd()).toBe(5);
      expect(await allowed(meter)).toEqual({ metrics: true, backfill: true, poll: true });
    });

    it("sees another process's reads within 5 s, and its own at once", async () => {
      const testDb = await freshDb();
      const meter = meterOn(testDb, 1);
      const otherProcess = meterOn(testDb, 1);
      expect(await meter.spentTodayUsd()).toBe(0);
      await otherProcess.record(posts(numbered('p', 200)));
      expect(await meter.allows('poll')).toBe(true);
      clock = new Date(clock.getTime() + 4_999);
      expect(await meter.spentTodayUsd()).toBe(0);
      clock = new Date(clock.getTime() + 1);
      expect(await meter.spentTodayUsd()).toBe(1);

      await meter.record(users(['u1']));
      expect(await meter.spentTodayUsd()).toBe(1.01);
    });

    it('resumes at the next 00:00 UTC', async () => {
      const meter = meterOn(await freshDb());
      clock = new Date('2026-03-10T13:45:00.000Z');
      expect(meter.resumesAt()).toBe('2026-03-11T00:00:00.000Z');
      clock = new Date('2026-03-11T00:00:00.000Z');
      expect(meter.resumesAt()).toBe('2026-03-12T00:00:00.000Z');
      clock = new Date('2026-12-31T23:59:59.999Z');
      expect(meter.resumesAt()).toBe('2027-01-01T00:00:00.000Z');
    });

    it('never throws from record: a failed write is logged', async () => {
      const warnings: string[] = [];
      const broken = {
        ...(await freshDb()),
        db: {
          selectFrom: () => {
            throw new Error('database is gone');
          },
        },
      } as unknown as Db;
      const meter = new XUsageMeter({
        db: broken,
        prices: { postReadUsd: 0.005, userReadUsd: 0.01 },
        log: { warn: (_obj, msg) => warnings.push(msg) },
      });
      await expect(meter.record(posts(['p1'], '11'))).resolves.toBeUndefined();
      expect(warnings).toEqual(['could not record billed X reads']);
    });
  });

  describe('projectMonthMicros', () => {
    it('divides by the share of the month gone, counting at least one hour', () => {
      // 30 minutes into a 31-day month count as an hour: 744 hours in all.
      expect(projectMonthMicros(5_000, new Date('2026-03-01T00:30:00.000Z'))).toBe(3_720_000);
      expect(projectMonthMicros(5_000, new Date('2026-03-01T02:00:00.000Z'))).toBe(1_860_000);
      // Half of a 30-day April gone doubles the spend.
      expect(projectMonthMicros(1_000_000, new Date('2026-04-16T00:00:00.000Z'))).toBe(2_000_000);
      expect(projectMonthMicros(0, new Date('2026-04-16T00:00:00.000Z'))).toBe(0);
    });
  });
});
