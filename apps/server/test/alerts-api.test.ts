import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import {
  ALERT_MAX_MULTIPLE,
  ALERT_MAX_PERCENT,
  ALERT_MAX_SILENCE_DAYS,
  ALERT_MAX_WITHIN_HOURS,
  ALERT_MESSAGES,
  ALERT_NAME_MAX_LENGTH,
  ALERT_RULES_PER_USER,
  FILTER_MESSAGES,
  alertFiringListSchema,
  alertRuleListSchema,
  alertRuleResponseSchema,
  deletedResponseSchema,
  describeFiring,
  alertsExportSchema,
  tweetPageResponseSchema,
  type AlertKindInput,
} from '@perch/shared';
import { upsertTweets } from '../src/modules/tweets/tweets.repository.js';
import { dataOf, expectError } from './assertions.js';
import { makeTweet } from './factories.js';
import { DIALECTS, TestClient } from './helpers.js';
import { handleFollowedBy } from './notify-helpers.js';
import { appForSuite, signedInUser, uniqueName } from './seed.js';

const ruleResponseSchema = alertRuleResponseSchema;
const deletedSchema = deletedResponseSchema;

const LIKES_KIND: AlertKindInput = {
  type: 'metric_threshold',
  metric: 'likes',
  threshold: 1000,
  within_hours: 24,
};
const SILENCE_KIND: AlertKindInput = { type: 'silence', days: 3 };

describe.each(DIALECTS)('alerts API [%s]', (dialect) => {
  const suite = appForSuite(dialect);

  /** A new user following a new handle of their own (no channels switched on). */
  async function userWithHandle(prefix = 'ada') {
    const { t } = suite;
    const user = await signedInUser(t, prefix);
    const handle = uniqueName('h');
    const handleId = await handleFollowedBy(t, handle, [user.userId], {});
    return { ...user, handle, handleId };
  }

  const create = (client: TestClient, body: Record<string, unknown>) =>
    client.post('/api/v1/alerts', body);
  const patch = (client: TestClient, id: number, body: Record<string, unknown>) =>
    client.request({ method: 'PATCH', url: `/api/v1/alerts/${id}`, payload: body });

  async function createdRule(
    client: TestClient,
    handle: string,
    kind: AlertKindInput = LIKES_KIND,
    name = 'Viral post',
  ) {
    const response = await create(client, { handle, name, kind });
    expect(response.statusCode, response.body).toBe(201);
    return dataOf(response, ruleResponseSchema).rule;
  }

  /** A stored firing, as evaluation writes it; its id. */
  async function fired(
    rule: { id: number; userId: number; handleId: number },
    firing: { key: string; tweetId?: string | null; numbers?: Record<string, number>; at?: string },
  ): Promise<number> {
    const row = await suite.t.db.db
      .insertInto('alert_firings')
      .values({
        rule_id: rule.id,
        user_id: rule.userId,
        handle_id: rule.handleId,
        firing_key: firing.key,
        tweet_id: firing.tweetId ?? null,
        fired_at: firing.at ?? new Date().toISOString(),
        numbers: JSON.stringify(firing.numbers ?? { value: 1204 }),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  const memoryOf = async (id: number) =>
    (
      await suite.t.db.db
        .selectFrom('alert_rules')
        .select('memory')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).memory;

  it("unfollowing a handle deletes the user's rules of it and their history", async () => {
    const ada = await userWithHandle();
    const rule = await createdRule(ada.client, ada.handle);
    await fired({ id: rule.id, userId: ada.userId, handleId: ada.handleId }, { key: 'k1' });
    const other = await userWithHandle('bob');
    await createdRule(other.client, other.handle);
    const removed = await ada.client.request({
      method: 'DELETE',
      url: `/api/v1/handles/${ada.handleId}`,
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(dataOf(await ada.client.get('/api/v1/alerts'), alertRuleListSchema).rules).toEqual([]);
    const firings = await suite.t.db.db
      .selectFrom('alert_firings')
      .select('id')
      .where('user_id', '=', ada.userId)
      .execute();
    expect(firings).toEqual([]);
    expect(
      dataOf(await other.client.get('/api/v1/alerts'), alertRuleListSchema).rules,
    ).toHaveLength(1);
  });

  it('creates, lists, changes and deletes a rule', async () => {
    const ada = await userWithHandle();
    const empty = dataOf(await ada.client.get('/api/v1/alerts'), alertRuleListSchema);
    expect(empty).toEqual({ rules: [], limit: ALERT_RULES_PER_USER });

    // The handle is found whatever its case, with or without '@'.
    const response = await create(ada.client, {
      handle: `@${ada.handle.toUpperCase()}`,
      name: '  Viral post ',
      kind: LIKES_KIND,
    });
    expect(response.statusCode, response.body).toBe(201);
    const { rule } = dataOf(response, ruleResponseSchema);
    expect(rule).toMatchObject({
      handle: ada.handle,
      name: 'Viral post',
      enabled: true,
      kind: LIKES_KIND,
    });
    const silence = await createdRule(ada.client, ada.handle, SILENCE_KIND, 'Gone quiet');

    const list = dataOf(await ada.client.get('/api/v1/alerts'), alertRuleListSchema);
    expect(list.rules.map((entry) => entry.id)).toEqual([rule.id, silence.id]);
    expect(list.rules[0]).toEqual(rule);

    const changed = await patch(ada.client, rule.id, { name: 'Big post', enabled: false });
    expect(dataOf(changed, ruleResponseSchema).rule).toMatchObject({
      id: rule.id,
      name: 'Big post',
      enabled: false,
      kind: LIKES_KIND,
    });

    expect(dataOf(await ada.client.delete(`/api/v1/alerts/${rule.id}`), deletedSchema)).toEqual({
      deleted: true,
    });
    expectError(await ada.client.delete(`/api/v1/alerts/${rule.id}`), 404, {
      message: ALERT_MESSAGES.notFound,
    });
    const after = dataOf(await ada.client.get('/api/v1/alerts'), alertRuleListSchema);
    expect(after.rules.map((entry) => entry.id)).toEqual([silence.id]);
  });

  it('refuses each kind of bad rule with what is wrong', async () => {
    const ada = await userWithHandle();
    const metric = (change: Record<string, unknown>) => ({ ...LIKES_KIND, ...change });
    const multiple = (change: Record<string, unknown>) => ({
      type: 'engagement_multiple',
      multiple: 3,
      period: 'week',
      ...change,
    });
    const followers = (change: Record<string, unknown>) => ({
      type: 'follower_change',
      percent: 10,
      direction: 'up',
      ...change,
    });
    const cases: [unknown, string][] = [
      [metric({ threshold: 0 }), ALERT_MESSAGES.thresholdInvalid],
      [metric({ threshold: 2.5 }), ALERT_MESSAGES.thresholdInvalid],
      [metric({ threshold: '1000' }), ALERT_MESSAGES.thresholdInvalid],
      [metric({ within_hours: 0 }), ALERT_MESSAGES.withinHoursInvalid],
      [metric({ within_hours: ALERT_MAX_WITHIN_HOURS + 1 }), ALERT_MESSAGES.withinHoursInvalid],
      [metric({ metric: 'bookmarks' }), ALERT_MESSAGES.metricUnknown],
      [multiple({ multiple: 1 }), ALERT_MESSAGES.multipleInvalid],
      [multiple({ multiple: ALERT_MAX_MULTIPLE + 1 }), ALERT_MESSAGES.multipleInvalid],
      [multiple({ period: 'year' }), ALERT_MESSAGES.periodUnknown],
      [followers({ percent: 0 }), ALERT_MESSAGES.percentInvalid],
      [followers({ percent: ALERT_MAX_PERCENT + 1 }), ALERT_MESSAGES.percentInvalid],
      [followers({ percent: undefined, accounts: 0 }), ALERT_MESSAGES.accountsInvalid],
      [followers({ percent: undefined }), ALERT_MESSAGES.followerChangeEmpty],
      [followers({ direction: 'sideways' }), ALERT_MESSAGES.directionUnknown],
      [{ type: 'silence', days: 0 }, ALERT_MESSAGES.silenceDaysInvalid],
      [{ type: 'silence', days: ALERT_MAX_SILENCE_DAYS + 1 }, ALERT_MESSAGES.silenceDaysInvalid],
      [{ type: 'words', include: [], exclude: [] }, ALERT_MESSAGES.wordsIncludeEmpty],
      [
        { type: 'words', include: ['Launch'], exclude: ['launch'] },
        FILTER_MESSAGES.termInBoth('Launch'),
      ],
      [{ type: 'weather', days: 3 }, ALERT_MESSAGES.kindUnknown],
    ];
    for (const [kind, message] of cases) {
      const response = await create(ada.client, { handle: ada.handle, name: 'Rule', kind });
      expectError(response, 400, { message, code: 'VALIDATION_ERROR' });
    }
    const named = (name: unknown) =>
      create(ada.client, { handle: ada.handle, name, kind: LIKES_KIND });
    expectError(await named('   '), 400, { message: ALERT_MESSAGES.nameEmpty });
    expectError(await named('x'.repeat(ALERT_NAME_MAX_LENGTH + 1)), 400, {
      message: ALERT_MESSAGES.nameTooLong,
    });
    expectError(await named(7), 400, { message: ALERT_MESSAGES.nameNotText });

    const rule = await createdRule(ada.client, ada.handle);
    expectError(await patch(ada.client, rule.id, {}), 400, { message: ALERT_MESSAGES.updateEmpty });
    expectError(await patch(ada.client, rule.id, { enabled: 'yes' }), 400, {
      message: ALERT_MESSAGES.enabledNotBoolean,
    });
    expectError(await patch(ada.client, rule.id, { kind: { type: 'silence', days: 0 } }), 400, {
      message: ALERT_MESSAGES.silenceDaysInvalid,
    });
    // Nothing refused was stored.
    const { rules } = dataOf(await ada.client.get('/api/v1/alerts'), alertRuleListSchema);
    expect(rules).toEqual([rule]);
  });

  it('keeps to the limit of rules per user', async () => {
    const ada = await userWithHandle();
    const now = new Date().toISOString();
    await suite.t.db.db
      .insertInto('alert_rules')
      .values(
        Array.from({ length: ALERT_RULES_PER_USER - 1 }, (_, index) => ({
          user_id: ada.userId,
          handle_id: ada.handleId,
          name: `Rule ${index + 1}`,
          enabled: true,
          kind: JSON.stringify(SILENCE_KIND),
          memory: null,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
    await createdRule(ada.client, ada.handle, LIKES_KIND, 'The last one');
    expectError(
      await create(ada.client, { handle: ada.handle, name: 'One too many', kind: LIKES_KIND }),
      409,
      {
        message: ALERT_MESSAGES.limitReached,
      },
    );
    const { rules } = dataOf(await ada.client.get('/api/v1/alerts'), alertRuleListSchema);
    expect(rules).toHaveLength(ALERT_RULES_PER_USER);
  });

  it("needs a followed handle, and never shows or changes another user's rule", async () => {
    const ada = await userWithHandle();
    const bob = await userWithHandle('bob');
    expectError(
      await create(ada.client, { handle: bob.handle, name: 'Theirs', kind: LIKES_KIND }),
      404,
      {
        message: 'Handle not found',
      },
    );
    expectError(
      await create(ada.client, { handle: 'nobody_here', name: 'None', kind: LIKES_KIND }),
      404,
      {
        message: 'Handle not found',
      },
    );
    expectError(
      await create(ada.client, { handle: 'not a handle!', name: 'Bad', kind: LIKES_KIND }),
      400,
      {
        message: 'Invalid Twitter handle provided',
      },
    );

    const rule = await createdRule(ada.client, ada.handle);
    const firingId = await fired(
      { id: rule.id, userId: ada.userId, handleId: ada.handleId },
      { key: '111', tweetId: '111' },
    );
    const notFound = { message: ALERT_MESSAGES.notFound, code: 'NOT_FOUND' };
    expectError(await patch(bob.client, rule.id, { name: 'Mine now' }), 404, notFound);
    expectError(await bob.client.delete(`/api/v1/alerts/${rule.id}`), 404, notFound);
    expectError(await bob.client.get(`/api/v1/alerts/firings?rule_id=${rule.id}`), 404, notFound);
    const bobs = dataOf(await bob.client.get('/api/v1/alerts/firings'), alertFiringListSchema);
    expect(bobs.firings.map((firing) => firing.id)).not.toContain(firingId);
    expect(dataOf(await bob.client.get('/api/v1/alerts'), alertRuleListSchema).rules).toEqual([]);
    const bobsExport = alertsExportSchema.parse(
      (await bob.client.get('/api/v1/alerts/export')).json(),
    );
    expect(bobsExport.firings).toEqual([]);
    // Ada's rule is untouched.
    expect(dataOf(await ada.client.get('/api/v1/alerts'), alertRuleListSchema).rules).toEqual([
      rule,
    ]);

    const stranger = new TestClient(suite.t.app);
    expectError(await stranger.get('/api/v1/alerts'), 401);
    expectError(await stranger.get('/api/v1/alerts/firings'), 401);
  });

  it('forgets the crossing memory when the rule watches something else', async () => {
    const ada = await userWithHandle();
    const rule = await createdRule(ada.client, ada.handle, SILENCE_KIND, 'Quiet');
    const memory = JSON.stringify({ armed: false, lastFiredAt: 1_764_000_000_000 });
    await suite.t.db.db
      .updateTable('alert_rules')
      .set({ memory })
      .where('id', '=', rule.id)
      .execute();

    await patch(ada.client, rule.id, { name: 'Still quiet', enabled: false });
    expect(await memoryOf(rule.id)).toBe(memory);
    // The same kind again is no change.
    await patch(ada.client, rule.id, { kind: SILENCE_KIND });
    expect(await memoryOf(rule.id)).toBe(memory);

    const response = await patch(ada.client, rule.id, { kind: { type: 'silence', days: 7 } });
    expect(dataOf(response, ruleResponseSchema).rule.kind).toEqual({ type: 'silence', days: 7 });
    expect(await memoryOf(rule.id)).toBeNull();
  });

  it('lists firings newest first, a page at a time, by handle or rule', async () => {
    const ada = await userWithHandle();
    const likes = await createdRule(ada.client, ada.handle, LIKES_KIND, 'Viral');
    const quiet = await createdRule(ada.client, ada.handle, SILENCE_KIND, 'Quiet');
    const otherName = uniqueName('o');
    const otherId = await handleFollowedBy(suite.t, otherName, [ada.userId], {});
    const otherRule = await createdRule(ada.client, otherName, SILENCE_KIND, 'Other quiet');

    const ids: number[] = [];
    for (let index = 0; index < 4; index++) {
      ids.push(
        await fired(
          { id: likes.id, userId: ada.userId, handleId: ada.handleId },
          {
            key: `10${index}`,
            tweetId: `10${index}`,
            numbers: { value: 1000 + index },
            at: new Date(Date.UTC(2026, 0, 1, index)).toISOString(),
          },
        ),
      );
    }
    ids.push(
      await fired(
        { id: quiet.id, userId: ada.userId, handleId: ada.handleId },
        { key: 'crossing-1', numbers: { days_silent: 4 } },
      ),
    );
    const otherFiring = await fired(
      { id: otherRule.id, userId: ada.userId, handleId: otherId },
      { key: 'crossing-2', numbers: { days_silent: 5 } },
    );

    const page = async (query: string) =>
      dataOf(await ada.client.get(`/api/v1/alerts/firings?${query}`), alertFiringListSchema);

    const first = await page('limit=2');
    expect(first.firings.map((firing) => firing.id)).toEqual([otherFiring, ids[4]]);
    expect(first.next_before).toBe(ids[4]);
    const second = await page(`limit=2&before=${first.next_before}`);
    expect(second.firings.map((firing) => firing.id)).toEqual([ids[3], ids[2]]);
    const third = await page(`limit=2&before=${second.next_before}`);
    expect(third.firings.map((firing) => firing.id)).toEqual([ids[1], ids[0]]);
    expect(third.next_before).toBeNull();

    const post = second.firings[0]!;
    expect(post).toEqual({
      id: ids[3],
      rule_id: likes.id,
      rule_name: 'Viral',
      handle: ada.handle,
      kind: LIKES_KIND,
      tweet_id: '103',
      tweet_url: `https://x.com/${ada.handle}/status/103`,
      fired_at: '2026-01-01T03:00:00.000Z',
      numbers: { value: 1003 },
      summary: describeFiring(ada.handle, likes.kind, { value: 1003 }),
    });
    expect(post.summary).toContain(`A post by @${ada.handle} reached 1,003 likes`);
    const silence = first.firings[1]!;
    expect(silence).toMatchObject({ tweet_id: null, tweet_url: null, rule_name: 'Quiet' });
    expect(silence.summary).toBe(`@${ada.handle} has not posted for 4 days.`);

    const ofRule = await page(`rule_id=${quiet.id}`);
    expect(ofRule.firings.map((firing) => firing.id)).toEqual([ids[4]]);
    const ofHandle = await page(`handle=@${otherName.toUpperCase()}`);
    expect(ofHandle.firings.map((firing) => firing.id)).toEqual([otherFiring]);
    expect((await page('handle=nobody_here')).firings).toEqual([]);

    // A firing shows its rule as it is now.
    await patch(ada.client, likes.id, {
      name: 'Very viral',
      kind: { ...LIKES_KIND, threshold: 5000 },
    });
    const renamed = (await page(`rule_id=${likes.id}&limit=1`)).firings[0]!;
    expect(renamed).toMatchObject({ rule_name: 'Very viral', kind: { threshold: 5000 } });

    expectError(await ada.client.get('/api/v1/alerts/firings?limit=0'), 400);
    expectError(await ada.client.get('/api/v1/alerts/firings?before=abc'), 400);
  });

  it('exports the rules and firings as JSON and as CSV', async () => {
    const ada = await userWithHandle();
    const rule = await createdRule(
      ada.client,
      ada.handle,
      LIKES_KIND,
      '=HYPERLINK("http://evil.example","x")',
    );
    const quiet = await createdRule(ada.client, ada.handle, SILENCE_KIND, 'Quiet, "really"');
    const postFiring = await fired(
      { id: rule.id, userId: ada.userId, handleId: ada.handleId },
      { key: '555', tweetId: '555', numbers: { value: 2000 }, at: '2026-02-01T10:00:00.000Z' },
    );
    const silenceFiring = await fired(
      { id: quiet.id, userId: ada.userId, handleId: ada.handleId },
      { key: 'crossing', numbers: { days_silent: 3 }, at: '2026-02-02T10:00:00.000Z' },
    );
    const today = new Date().toISOString().slice(0, 10);

    const json = await ada.client.get('/api/v1/alerts/export?format=json');
    expect(json.statusCode, json.body).toBe(200);
    expect(json.headers['content-disposition']).toBe(
      `attachment; filename="perch-alerts-${today}.json"`,
    );
    expect(json.headers['cache-control']).toBe('no-store');
    const exported = alertsExportSchema.parse(json.json());
    expect(exported.rules.map((entry) => entry.id)).toEqual([rule.id, quiet.id]);
    expect(exported.firings.map((entry) => entry.id)).toEqual([silenceFiring, postFiring]);
    expect(exported.firings[1]).toMatchObject({
      tweet_url: `https://x.com/${ada.handle}/status/555`,
      numbers: { value: 2000 },
    });
    // JSON is the default.
    const byDefault = await ada.client.get('/api/v1/alerts/export');
    expect(byDefault.headers['content-disposition']).toMatch(/\.json"$/);

    const csv = await ada.client.get('/api/v1/alerts/export?format=csv');
    expect(csv.statusCode, csv.body).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers['content-disposition']).toBe(
      `attachment; filename="perch-alerts-${today}.csv"`,
    );
    // The rule name that would be a formula is text in a spreadsheet.
    expect(csv.body).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    const rows = parse(csv.body, { relax_column_count: false }) as string[][];
    expect(rows[0]).toEqual([
      'id',
      'fired_at',
      'rule_id',
      'rule_name',
      'handle',
      'kind',
      'summary',
      'tweet_id',
      'tweet_url',
      'numbers',
    ]);
    expect(rows.slice(1)).toEqual([
      [
        String(silenceFiring),
        '2026-02-02T10:00:00.000Z',
        String(quiet.id),
        'Quiet, "really"',
        ada.handle,
        'silence',
        // A cell starting with '@' could be a formula too.
        `'@${ada.handle} has not posted for 3 days.`,
        '',
        '',
        '{"days_silent":3}',
      ],
      [
        String(postFiring),
        '2026-02-01T10:00:00.000Z',
        String(rule.id),
        `'=HYPERLINK("http://evil.example","x")`,
        ada.handle,
        'metric_threshold',
        describeFiring(ada.handle, rule.kind, { value: 2000 }),
        '555',
        `https://x.com/${ada.handle}/status/555`,
        '{"value":2000}',
      ],
    ]);
    expectError(await ada.client.get('/api/v1/alerts/export?format=xml'), 400);
  });

  it('cancels the waiting deliveries of a deleted rule', async () => {
    const ada = await userWithHandle();
    const rule = await createdRule(ada.client, ada.handle);
    const firingId = await fired(
      { id: rule.id, userId: ada.userId, handleId: ada.handleId },
      { key: '777', tweetId: '777' },
    );
    const now = new Date().toISOString();
    const outbox = (status: 'pending' | 'sent', channel: 'telegram' | 'discord') => ({
      user_id: ada.userId,
      handle_id: ada.handleId,
      tweet_id: `alert:${firingId}`,
      channel,
      status,
      next_attempt_at: now,
      last_error: null,
      created_at: now,
      sent_at: status === 'sent' ? now : null,
      claimed_by: null,
      digest_of: null,
      alert_firing_id: firingId,
    });
    await suite.t.db.db
      .insertInto('notification_outbox')
      .values([outbox('pending', 'telegram'), outbox('sent', 'discord')])
      .execute();

    expect((await ada.client.delete(`/api/v1/alerts/${rule.id}`)).statusCode).toBe(200);
    const rows = await suite.t.db.db
      .selectFrom('notification_outbox')
      .select(['channel', 'status', 'last_error'])
      .where('user_id', '=', ada.userId)
      .orderBy('channel')
      .execute();
    expect(rows).toEqual([
      { channel: 'discord', status: 'sent', last_error: null },
      { channel: 'telegram', status: 'cancelled', last_error: 'The alert was deleted' },
    ]);
    const left = await suite.t.db.db
      .selectFrom('alert_firings')
      .select('id')
      .where('rule_id', '=', rule.id)
      .execute();
    expect(left).toEqual([]);
  });

  it("names the reader's rules that fired on each tweet in the browser", async () => {
    const { t } = suite;
    const ada = await userWithHandle();
    const bob = await signedInUser(t, 'bob');
    await t.db.db
      .insertInto('user_handles')
      .values({
        user_id: bob.userId,
        handle_id: ada.handleId,
        added_at: new Date().toISOString(),
        backfill_days: 7,
        telegram_enabled: false,
        discord_enabled: false,
      })
      .execute();
    const [hot, calm] = [makeTweet({ text: 'Hot take' }), makeTweet({ text: 'Calm day' })];
    await upsertTweets(t.db.db, ada.handleId, [hot!, calm!], new Date().toISOString());

    const viral = await createdRule(ada.client, ada.handle, LIKES_KIND, 'Viral');
    const words = await createdRule(
      ada.client,
      ada.handle,
      { type: 'words', include: ['hot'], exclude: [] },
      'Hot words',
    );
    const bobsRule = await createdRule(bob.client, ada.handle, LIKES_KIND, "Bob's rule");
    for (const rule of [viral, words]) {
      await fired(
        { id: rule.id, userId: ada.userId, handleId: ada.handleId },
        { key: hot!.id, tweetId: hot!.id },
      );
    }
    await fired(
      { id: bobsRule.id, userId: bob.userId, handleId: ada.handleId },
      { key: calm!.id, tweetId: calm!.id },
    );

    const namesSeenBy = async (client: TestClient) => {
      const page = dataOf(
        await client.get(`/api/v1/handles/${ada.handle}/tweets?page=1&limit=10`),
        tweetPageResponseSchema,
      );
      return Object.fromEntries(page.tweets.map((tweet) => [tweet.text, tweet.alert_rule_names]));
    };
    expect(await namesSeenBy(ada.client)).toEqual({
      'Hot take': ['Viral', 'Hot words'],
      'Calm day': [],
    });
    expect(await namesSeenBy(bob.client)).toEqual({
      'Hot take': [],
      'Calm day': ["Bob's rule"],
    });
  });
});
