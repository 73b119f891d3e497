/**
 * An attacker guessing passwords cannot grow the security log: failed and locked sign-ins of one
 * account write a bounded number of rows, and the aggregate counts every attempt.
 */
import { describe, expect, it } from 'vitest';
import { recordAuthEvent } from '../src/modules/auth/auth-events.js';
import { recordBoundedEvent } from '../src/modules/auth/bounded-events.js';
import {
  AGGREGATED_EVENT_TYPES,
  EVENTS_BEFORE_AGGREGATE,
  aggregatedCount,
} from '../src/modules/auth/event-aggregation.js';
import { representedEvents } from './assertions.js';
import { DIALECTS, TestClient, type TestApp } from './helpers.js';
import { closedAfterEachTest } from './seed.js';

interface EventRow {
  event_type: string;
  metadata: string;
  description: string;
  user_id: number | null;
}

describe.each(DIALECTS)('bounded security events (%s)', (dialect) => {
  const fresh = closedAfterEachTest(dialect);
  let t: TestApp | undefined;

  async function eventsOf(userId: number | null): Promise<EventRow[]> {
    if (!t) throw new Error('no app');
    return t.db.db
      .selectFrom('security_events')
      .select(['event_type', 'metadata', 'description', 'user_id'])
      .where((eb) => (userId === null ? eb('user_id', 'is', null) : eb('user_id', '=', userId)))
      .where('event_type', 'in', [...AGGREGATED_EVENT_TYPES])
      .orderBy('id')
      .execute();
  }

  it('200 failed sign-ins for one account write a handful of rows with the right counts', async () => {
    t = await fresh.app();
    const owner = new TestClient(t.app);
    const { data } = await owner.register(t.db, 'victim');
    // 20 addresses, 10 tries each: each address is locked after a few wrong passwords.
    const attackers = Array.from({ length: 20 }, (_, i) => new TestClient(t!.app, `10.9.0.${i}`));
    const answers = { wrong: 0, refused: 0 };
    for (const attacker of attackers) {
      for (let i = 0; i < 10; i++) {
        const response = await attacker.post('/api/v1/auth/login', {
          username: 'victim',
          password: `guess-${i}`,
        });
        if (response.statusCode === 401) answers.wrong += 1;
        else if (response.statusCode === 429) answers.refused += 1;
        else throw new Error(`unexpected ${response.statusCode}: ${response.body}`);
      }
    }
    expect(answers.wrong + answers.refused).toBe(200);

    const rows = await eventsOf(data.user.id);
    const ofType = (type: string) => rows.filter((row) => row.event_type === type);
    // Every wrong password is counted, in a row of its own or in an aggregate.
    expect(representedEvents(ofType('login_failed'))).toBe(answers.wrong);
    expect(representedEvents(ofType('login_locked'))).toBeLessThanOrEqual(answers.refused);
    // Per type and 5-minute window: the first few one by one, then one aggregate. The run may
    // straddle two windows.
    const types = new Set(rows.map((row) => row.event_type));
    expect(rows.length).toBeLessThanOrEqual(types.size * 2 * (EVENTS_BEFORE_AGGREGATE + 1));
    for (const aggregate of rows.filter((row) => aggregatedCount(row.metadata) !== null)) {
      const count = aggregatedCount(aggregate.metadata);
      expect(aggregate.description).toMatch(new RegExp(`^${count} more `));
      const metadata = JSON.parse(aggregate.metadata) as { ips: string[]; login: string };
      expect(metadata.login).toBe('victim');
      expect(metadata.ips.length).toBeGreaterThan(0);
      expect(metadata.ips.length).toBeLessThanOrEqual(10);
    }
  });

  it('200 failed sign-in events of one account become a few rows and one aggregate of the rest', async () => {
    t = await fresh.app();
    const owner = new TestClient(t.app);
    const { data } = await owner.register(t.db, 'target');
    for (let i = 0; i < 200; i++) {
      await recordAuthEvent(
        t.db,
        { ip: `10.9.3.${i % 50}`, userAgent: 'curl/8' },
        {
          type: 'login_failed',
          severity: 'medium',
          description: 'Failed sign-in: wrong password.',
          userId: data.user.id,
          metadata: { login: 'target' },
        },
      );
    }
    const rows = await eventsOf(data.user.id);
    expect(representedEvents(rows)).toBe(200);
    expect(rows.length).toBeLessThanOrEqual(2 * (EVENTS_BEFORE_AGGREGATE + 1));
    const aggregate = rows.find((row) => aggregatedCount(row.metadata) !== null);
    expect(aggregate?.description).toMatch(/^\d+ more failed sign-ins in these 5 minutes/);
  });

  it('bounds the sign-ins of names that match no account together', async () => {
    t = await fresh.app();
    let wrong = 0;
    for (let i = 0; i < 30; i++) {
      const attacker = new TestClient(t.app, `10.9.1.${i % 3}`);
      const response = await attacker.post('/api/v1/auth/login', {
        username: `nobody-${i}`,
        password: 'whatever',
      });
      expect([401, 429]).toContain(response.statusCode);
      if (response.statusCode === 401) wrong += 1;
    }
    const rows = await eventsOf(null);
    expect(representedEvents(rows.filter((row) => row.event_type === 'login_failed'))).toBe(wrong);
    const types = new Set(rows.map((row) => row.event_type));
    expect(rows.length).toBeLessThanOrEqual(types.size * 2 * (EVENTS_BEFORE_AGGREGATE + 1));
  });

  it('counts every event exactly when many arrive at once', async () => {
    const db = await fresh.db();
    const at = '2026-03-01T10:01:00.000Z';
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        recordBoundedEvent(db, {
          userId: null,
          type: 'login_failed',
          severity: 'medium',
          description: 'Failed sign-in: no account has this username or email.',
          ip: `10.9.2.${i}`,
          metadata: { login: `name-${i}` },
          at,
        }),
      ),
    );
    const rows = await db.db
      .selectFrom('security_events')
      .select(['event_type', 'metadata', 'description', 'user_id'])
      .orderBy('id')
      .execute();
    expect(rows).toHaveLength(EVENTS_BEFORE_AGGREGATE + 1);
    expect(aggregatedCount(rows.at(-1)!.metadata)).toBe(40 - EVENTS_BEFORE_AGGREGATE);
    expect(representedEvents(rows)).toBe(40);

    // The next window starts over.
    await recordBoundedEvent(db, {
      userId: null,
      type: 'login_failed',
      severity: 'medium',
      description: 'Failed sign-in: no account has this username or email.',
      at: '2026-03-01T10:05:00.000Z',
    });
    // In the order written: without ORDER BY, PostgreSQL gave the aggregate row, which 36
    // updates had moved within the table, after the new event once.
    const after = await db.db
      .selectFrom('security_events')
      .select('metadata')
      .orderBy('id')
      .execute();
    expect(after).toHaveLength(EVENTS_BEFORE_AGGREGATE + 2);
    expect(aggregatedCount(after.at(-1)!.metadata)).toBeNull();
  });
});
