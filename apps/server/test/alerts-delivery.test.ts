import fs from 'node:fs';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { AlertKindInput } from '@perch/shared';
import { evaluatePendingPosts } from '../src/alerts/evaluation.js';
import { markForAlerts } from '../src/alerts/marks.repository.js';
import type { SourceTweet } from '../src/domain/tweet-source.js';
import { recordMetrics, type DueMetricsRow } from '../src/modules/tweets/tweets.repository.js';
import { WEBHOOK_SECRET_UNREADABLE } from '../src/notify/webhook/secret.js';
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from './fakes/webhook-receiver.js';
import { DIALECTS, markedPosts } from './helpers.js';
import { schemaErrors } from './json-schema-subset.js';
import {
  buildNotifyTestApp,
  handleFollowedBy,
  makeTweet,
  monitorFinds,
  insertWebhookEndpoint,
  sealWebhookSecret,
  userWithChannels,
  waitUntil,
  type NotifyTestApp,
} from './notify-helpers.js';

const SCHEMA = JSON.parse(
  fs.readFileSync(new URL('../../../docs/webhook-payload.schema.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

const MINUTE = 60_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

describe.each(DIALECTS)('alerts and webhooks delivered through the outbox (%s)', (dialect) => {
  let t: NotifyTestApp | undefined;
  let receiver: FakeWebhookReceiver | undefined;

  afterEach(async () => {
    await t?.close();
    await receiver?.close();
    t = undefined;
    receiver = undefined;
  });

  /** A user with Telegram and one webhook endpoint following a handle (new posts: webhook only). */
  async function setUp(options: { alertSweepMs?: number } = {}) {
    t = await buildNotifyTestApp(dialect, { fast: true, webhooks: true, ...options });
    receiver = await startFakeWebhookReceiver();
    const { userId } = await userWithChannels(t, 'watcher', { telegram: '500001' });
    const handleId = await handleFollowedBy(t, 'launchdesk', [userId], {});
    const endpointId = await insertWebhookEndpoint(t, {
      userId,
      name: 'Ops',
      url: receiver.url('/hook'),
      secret: receiver.secret,
    });
    return { t, receiver, userId, handleId, endpointId };
  }

  async function addRule(
    app: NotifyTestApp,
    userId: number,
    handleId: number,
    kind: AlertKindInput,
    createdAt = ago(MINUTE),
  ): Promise<number> {
    const rule = await app.db.db
      .insertInto('alert_rules')
      .values({
        user_id: userId,
        handle_id: handleId,
        name: `rule ${kind.type}`,
        enabled: true,
        kind: JSON.stringify(kind),
        memory: null,
        created_at: createdAt,
        updated_at: createdAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return rule.id;
  }

  /** A metric refresh as the collector stores it: the post's new numbers. */
  async function refresh(app: NotifyTestApp, handleId: number, tweet: SourceTweet) {
    const stored = await app.db.db
      .selectFrom('tweets')
      .select([
        'id',
        'handle_id',
        'tweet_id',
        'like_count',
        'retweet_count',
        'reply_count',
        'quote_count',
        'impression_count',
      ])
      .where('handle_id', '=', handleId)
      .where('tweet_id', '=', tweet.id)
      .executeTakeFirstOrThrow();
    await recordMetrics(
      app.db.db,
      handleId,
      [stored as DueMetricsRow],
      [tweet],
      new Date().toISOString(),
    );
  }

  /** Whether the post waits for its alert rules. */
  const marked = async (app: NotifyTestApp, tweetId: string) => {
    const post = await app.db.db
      .selectFrom('tweets')
      .select('id')
      .where('tweet_id', '=', tweetId)
      .executeTakeFirstOrThrow();
    return (await markedPosts(app.db)).includes(post.id);
  };

  /** The user's new posts go to webhooks (switched on for their handles, forwarding running). */
  async function newPostsToWebhooks(app: NotifyTestApp, userId: number) {
    await app.db.db
      .updateTable('user_handles')
      .set({ webhook_enabled: true })
      .where('user_id', '=', userId)
      .execute();
    await app.db.db.updateTable('user_settings').set({ bot_running: true }).execute();
  }

  const firings = (app: NotifyTestApp) =>
    app.db.db.selectFrom('alert_firings').selectAll().orderBy('id').execute();

  it('a post passing a threshold after a metric refresh alerts Telegram and the webhook once', async () => {
    const { t, receiver, userId, handleId } = await setUp();
    const ruleId = await addRule(t, userId, handleId, {
      type: 'metric_threshold',
      metric: 'likes',
      threshold: 100,
      within_hours: 6,
    });
    await t.worker.start();
    const post = makeTweet({ createdAt: ago(10 * MINUTE), likeCount: 40, text: 'Launch <today>' });
    await monitorFinds(t, handleId, [post]);
    // Below the threshold: looked at, nothing fired.
    await waitUntil(async () => {
      return !(await marked(t, post.id));
    });
    expect(await firings(t)).toEqual([]);

    await refresh(t, handleId, { ...post, likeCount: 150 });
    await waitUntil(
      () => t.telegram.messagesTo('500001').length === 1 && receiver.requests.length === 1,
    );
    const [firing] = await firings(t);
    expect(firing).toMatchObject({ rule_id: ruleId, tweet_id: post.id });
    expect(JSON.parse(firing!.numbers)).toMatchObject({ value: 150, threshold: 100 });

    const message = t.telegram.messagesTo('500001')[0]!;
    expect(message.text).toContain('rule metric_threshold');
    expect(message.text).toContain('A post by @launchdesk reached 150 likes within 6 hours');
    expect(message.text).toContain('Launch <today>');
    const request = receiver.requests[0]!;
    expect(request.signatureValid).toBe(true);
    const body = JSON.parse(request.body) as Record<string, unknown>;
    expect(schemaErrors(SCHEMA, body)).toEqual([]);
    expect(body).toMatchObject({
      type: 'alert',
      handle: 'launchdesk',
      post: { id: post.id, metrics: { likes: 150 } },
      alert: { rule: 'rule metric_threshold', numbers: { value: 150, threshold: 100 } },
    });

    // More likes later: the rule already fired on this post.
    await refresh(t, handleId, { ...post, likeCount: 400 });
    await waitUntil(async () => {
      return !(await marked(t, post.id));
    });
    expect(await firings(t)).toHaveLength(1);
    expect(t.telegram.messagesTo('500001')).toHaveLength(1);
    expect(receiver.requests).toHaveLength(1);
  });

  it('a words rule watches new posts only: not backfilled ones, not posts older than the rule', async () => {
    const { t, receiver, userId, handleId } = await setUp();
    await addRule(t, userId, handleId, { type: 'words', include: ['launch'], exclude: ['rumour'] });
    await t.worker.start();
    const before = makeTweet({ createdAt: ago(5 * MINUTE), text: 'launch, but before the rule' });
    const excluded = makeTweet({ text: 'launch rumour' });
    const wanted = makeTweet({ text: 'We launch on Monday' });
    await monitorFinds(t, handleId, [before, excluded, wanted]);
    await waitUntil(() => receiver.requests.length === 1);
    const rows = await firings(t);
    expect(rows.map((row) => row.tweet_id)).toEqual([wanted.id]);
    // The delivery log shows the alert rows with their rule.
    const log = await t.db.db
      .selectFrom('notification_outbox')
      .select(['channel', 'tweet_id', 'alert_firing_id'])
      .where('alert_firing_id', 'is not', null)
      .orderBy('id')
      .execute();
    expect(log.map((row) => row.channel).sort()).toEqual(
      ['telegram', `webhook:${rows.length}`].sort(),
    );
  });

  it('two evaluations of the same posts at once record each firing and delivery once', async () => {
    const { t, userId, handleId } = await setUp();
    await addRule(t, userId, handleId, { type: 'words', include: ['launch'], exclude: [] });
    const posts = Array.from({ length: 20 }, (_, i) => makeTweet({ text: `launch ${i}` }));
    // Stored as monitoring does, but no worker runs: the evaluations below race for them.
    const { upsertTweets } = await import('../src/modules/tweets/tweets.repository.js');
    await upsertTweets(t.db.db, handleId, posts, new Date().toISOString(), { markForFanout: true });
    const options = { now: new Date(), channels: ['telegram'] as const, webhooks: true };
    await Promise.all([
      evaluatePendingPosts(t.db, options),
      evaluatePendingPosts(t.db, options),
      evaluatePendingPosts(t.db, options),
    ]);
    // Marked again (a refresh) and evaluated again: still once.
    await markForAlerts(
      t.db.db,
      handleId,
      posts.map((post) => post.id),
      new Date().toISOString(),
    );
    expect(await marked(t, posts[0]!.id)).toBe(true);
    await evaluatePendingPosts(t.db, options);
    expect(await firings(t)).toHaveLength(20);
    const outbox = await t.db.db
      .selectFrom('notification_outbox')
      .select(['channel'])
      .where('alert_firing_id', 'is not', null)
      .execute();
    expect(outbox).toHaveLength(40);
  });

  it('a follower jump fires once per crossing, remembered across evaluations', async () => {
    const { t, receiver, userId, handleId } = await setUp({ alertSweepMs: 0 });
    const ruleId = await addRule(t, userId, handleId, {
      type: 'follower_change',
      accounts: 100,
      direction: 'up',
    });
    for (const [at, followers] of [
      [ago(20 * 60 * MINUTE), 1000],
      [ago(MINUTE), 1150],
    ] as const) {
      await t.db.db
        .insertInto('profile_snapshots')
        .values({
          handle_id: handleId,
          taken_at: at,
          followers,
          following: 1,
          tweet_count: 1,
          like_count: 0,
        })
        .execute();
    }
    await t.worker.start();
    await waitUntil(() => receiver.requests.length === 1);
    const body = JSON.parse(receiver.requests[0]!.body) as Record<string, unknown>;
    expect(schemaErrors(SCHEMA, body)).toEqual([]);
    expect(body).toMatchObject({
      type: 'alert',
      handle: 'launchdesk',
      alert: { numbers: { change: 150 } },
    });
    expect(body).not.toHaveProperty('post');
    const rule = await t.db.db
      .selectFrom('alert_rules')
      .select('memory')
      .where('id', '=', ruleId)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(rule.memory!)).toMatchObject({ armed: false });
    // Sweeps keep running (every round): the same crossing does not fire again.
    const worker = t.newWorker();
    await t.worker.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await worker.stop();
    expect(await firings(t)).toHaveLength(1);
    await waitUntil(() => t.telegram.messagesTo('500001').length === 1);
    expect(t.telegram.messagesTo('500001')[0]!.text).toContain('gained 150 followers');
  });

  it('new posts go to webhooks switched on per handle; a refusing endpoint stops', async () => {
    const { t, receiver, userId, handleId, endpointId } = await setUp();
    await newPostsToWebhooks(t, userId);
    await t.worker.start();
    const first = makeTweet({ text: 'first' });
    await monitorFinds(t, handleId, [first]);
    await waitUntil(() => receiver.requests.length === 1);
    const body = JSON.parse(receiver.requests[0]!.body) as Record<string, unknown>;
    expect(schemaErrors(SCHEMA, body)).toEqual([]);
    expect(body).toMatchObject({ type: 'post', handle: 'launchdesk', post: { id: first.id } });
    expect(receiver.requests[0]!.signatureValid).toBe(true);

    receiver.script({ kind: 'status', status: 410, body: 'gone' });
    await monitorFinds(t, handleId, [makeTweet({ text: 'second' }), makeTweet({ text: 'third' })]);
    await waitUntil(async () => {
      const endpoint = await t.db.db
        .selectFrom('webhook_endpoints')
        .select('stopped_reason')
        .where('id', '=', endpointId)
        .executeTakeFirstOrThrow();
      return endpoint.stopped_reason !== null;
    });
    await waitUntil(async () => {
      const rows = await t.db.db
        .selectFrom('notification_outbox')
        .select('status')
        .where('channel', '=', `webhook:${endpointId}`)
        .orderBy('id')
        .execute();
      return rows.map((row) => row.status).join() === 'sent,failed,cancelled';
    });
    expect(receiver.requests).toHaveLength(2);
  });

  it('never signs with a secret sealed for another endpoint: the endpoint stops and says why', async () => {
    const { t, receiver, userId, handleId, endpointId } = await setUp();
    // A sealed secret copied from another endpoint's row (somebody who can write the database,
    // but has not the key, and knows that other endpoint's secret).
    await t.db.db
      .updateTable('webhook_endpoints')
      .set({ secret_sealed: sealWebhookSecret('whsec_known-to-somebody-else', endpointId + 1) })
      .where('id', '=', endpointId)
      .execute();
    await newPostsToWebhooks(t, userId);
    await t.worker.start();
    await monitorFinds(t, handleId, [makeTweet({ text: 'not for the copied secret' })]);
    await waitUntil(async () => {
      const rows = await t.db.db
        .selectFrom('notification_outbox')
        .select('status')
        .where('channel', '=', `webhook:${endpointId}`)
        .execute();
      return rows.map((row) => row.status).join() === 'failed';
    });
    const stoppedReason = async () =>
      (
        await t.db.db
          .selectFrom('webhook_endpoints')
          .select('stopped_reason')
          .where('id', '=', endpointId)
          .executeTakeFirstOrThrow()
      ).stopped_reason;
    await waitUntil(async () => (await stoppedReason()) !== null);
    expect(await stoppedReason()).toBe(WEBHOOK_SECRET_UNREADABLE);
    expect(receiver.requests).toHaveLength(0);
  });

  it('an endpoint that is down gets every post once and in order when it is back; others are not held', async () => {
    const { t, receiver, userId, handleId } = await setUp();
    const healthy = await startFakeWebhookReceiver();
    await insertWebhookEndpoint(t, {
      userId,
      name: 'Healthy',
      url: healthy.url('/ok'),
      secret: healthy.secret,
    });
    await t.db.db.updateTable('user_handles').set({ webhook_enabled: true }).execute();
    await t.db.db.updateTable('user_settings').set({ bot_running: true }).execute();
    // Down: 503 four times, then a reset connection; the first endpoint's circuit opens.
    receiver.script({ kind: 'status', status: 503, body: 'maintenance' }, 4);
    receiver.script({ kind: 'reset' });
    const worker = t.newWorker({ retryDelayMs: () => 50, probeEveryMs: 100, circuitAfter: 2 });
    await worker.start();
    const posts = Array.from({ length: 4 }, (_, i) =>
      makeTweet({ createdAt: ago((4 - i) * MINUTE), text: `post ${i}` }),
    );
    await monitorFinds(t, handleId, posts);
    // The healthy endpoint is not held back by the other one's outage.
    await waitUntil(() => healthy.requests.length === 4);
    await waitUntil(() => receiver.requests.filter((r) => r.body.length > 0).length >= 9);
    const delivered = receiver.requests
      .slice(5)
      .map((request) => (JSON.parse(request.body) as { post: { id: string } }).post.id);
    expect(delivered).toEqual(posts.map((post) => post.id));
    // A row is marked sent once its answer is back, a moment after the receiver has the post.
    const statuses = () =>
      t.db.db
        .selectFrom('notification_outbox')
        .select(['channel', 'status'])
        .where(sql<boolean>`channel like 'webhook:%'`)
        .execute();
    await waitUntil(
      async () => (await statuses()).every((row) => row.status === 'sent'),
      15_000,
      'every webhook row marked sent',
    );
    expect(await statuses()).toHaveLength(8);
    await healthy.close();
  });
});
