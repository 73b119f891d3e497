import { type Selectable, sql } from 'kysely';
import { PLACEHOLDER_TWITTER_USERNAME } from '@perch/shared';
import type { Db, Executor } from '../db/index.js';
import type { NotificationChannel, NotificationOutboxTable, OutboxStatus } from '../db/types.js';
import { postIdLength } from '../db/posting-order.js';
import type { TweetRow } from '../db/types.js';
import {
  compileFilter,
  filterOfLink,
  prepareText,
  type CompiledFilter,
  type PreparedText,
} from './notification-filter.js';
import { allowsTweet, parsePreferences } from './preferences.js';

export type OutboxRow = Selectable<NotificationOutboxTable>;

/** Rows per INSERT: 8 parameters each, far below both databases' limits. */
const INSERT_CHUNK = 500;

/** A chat: one user's Telegram or Discord. */
export interface ChatKey {
  channel: NotificationChannel;
  user_id: number;
}

/**
 * Work for these chats is due at `dueAt` (new rows, or rows due sooner): each chat's `due_at`
 * becomes the earlier of the two and its version grows, whichever process writes. Every write
 * that adds or speeds up a chat's work calls this, in the same transaction.
 */
export async function wakeChats(
  db: Executor,
  chats: readonly ChatKey[],
  dueAt: string,
): Promise<void> {
  const unique = [
    ...new Map(chats.map((chat) => [`${chat.channel}:${chat.user_id}`, chat])).values(),
  ];
  for (let start = 0; start < unique.length; start += INSERT_CHUNK) {
    await db
      .insertInto('delivery_chats')
      .values(
        unique
          .slice(start, start + INSERT_CHUNK)
          .map(({ channel, user_id }) => ({ channel, user_id, due_at: dueAt, version: 1 })),
      )
      .onConflict((oc) =>
        oc.columns(['channel', 'user_id']).doUpdateSet({
          due_at: sql<string>`case when delivery_chats.due_at is null or delivery_chats.due_at > excluded.due_at then excluded.due_at else delivery_chats.due_at end`,
          version: sql<number>`delivery_chats.version + 1`,
        }),
      )
      .execute();
  }
}

/**
 * What a claim found out about a chat it visited: its next notice is due at `dueAt` (null:
 * nothing waits). Written only if no other write touched the chat since it was read.
 */
async function settleChat(
  db: Executor,
  chat: ChatKey & { version: number },
  dueAt: string | null,
): Promise<void> {
  await db
    .updateTable('delivery_chats')
    .set({ due_at: dueAt })
    .where('channel', '=', chat.channel)
    .where('user_id', '=', chat.user_id)
    .where('version', '=', chat.version)
    .execute();
}

export interface FanOutResult {
  /** Tweets taken off the fan-out list. */
  tweets: number;
  /** Outbox rows created to be sent. */
  queued: number;
  /** Rows created as 'filtered': held back by a user's filter of the handle (the log shows them). */
  filtered: number;
}

/**
 * Turns tweets waiting for their fan-out (`tweets.fanout_pending`, set by monitoring in the same
 * transaction as the insert) into outbox rows: one per follower of the handle and channel that
 * is connected, not stopped, enabled for that handle, allowed by the follower's preferences,
 * while the follower's bot runs and Twitter is connected. A tweet the follower's filter of the
 * handle holds back gets its rows as 'filtered', with the reason, so the delivery log can say
 * so; nothing sends them. The rows are inserted with ON CONFLICT
 * DO NOTHING and the marker cleared in the same transaction, so a crash at any point neither
 * loses nor doubles a delivery. On Postgres, concurrent fan-outs skip each other's tweets.
 */
export async function fanOutPending(
  { db, dialect }: Db,
  options: { now: string; channels: readonly NotificationChannel[]; limit?: number },
): Promise<FanOutResult> {
  return db.transaction().execute(async (trx) => {
    let pendingQuery = trx
      .selectFrom('tweets')
      .innerJoin('handles', 'handles.id', 'tweets.handle_id')
      .select([
        'tweets.id',
        'tweets.handle_id',
        'tweets.tweet_id',
        'tweets.referenced_types',
        'tweets.in_reply_to_user_id',
        'tweets.text',
        'tweets.media',
        'handles.x_user_id',
      ])
      .where('tweets.fanout_pending', '=', true)
      // Posting order, ties by post id: the rows are inserted in this order, and their ids are
      // the order each chat gets its notices in (claimNextDelivery).
      .orderBy('tweets.created_at')
      .orderBy(postIdLength('tweets.tweet_id'))
      .orderBy('tweets.tweet_id')
      .limit(options.limit ?? 200);
    if (dialect === 'postgres') pendingQuery = pendingQuery.forUpdate('tweets').skipLocked();
    const pending = await pendingQuery.execute();
    if (pending.length === 0) return { tweets: 0, queued: 0, filtered: 0 };

    const handleIds = [...new Set(pending.map((tweet) => tweet.handle_id))];
    const followers = await trx
      .selectFrom('user_handles')
      .innerJoin('user_settings', 'user_settings.user_id', 'user_handles.user_id')
      .leftJoin('x_accounts', 'x_accounts.user_id', 'user_handles.user_id')
      .select([
        'user_handles.user_id',
        'user_handles.handle_id',
        'user_handles.telegram_enabled',
        'user_handles.discord_enabled',
        'user_settings.telegram_chat_id',
        'user_settings.telegram_stopped_reason',
        'user_settings.discord_user_id',
        'user_settings.discord_stopped_reason',
        'user_settings.twitter_username',
        'user_settings.notification_preferences',
        'x_accounts.username as x_username',
        'user_handles.filter_include',
        'user_handles.filter_exclude',
        'user_handles.filter_media_only',
      ])
      .where('user_handles.handle_id', 'in', handleIds)
      .where('user_settings.bot_running', '=', true)
      .execute();

    const channelsOf = new Map<
      number,
      { userId: number; channel: NotificationChannel; filter: CompiledFilter | null }[]
    >();
    const preferencesOf = new Map<number, ReturnType<typeof parsePreferences>>();
    for (const row of followers) {
      const twitter =
        row.x_username !== null ||
        (row.twitter_username !== null && row.twitter_username !== PLACEHOLDER_TWITTER_USERNAME);
      if (!twitter) continue;
      const wanted: NotificationChannel[] = [];
      if (row.telegram_enabled && row.telegram_chat_id && !row.telegram_stopped_reason) {
        wanted.push('telegram');
      }
      if (row.discord_enabled && row.discord_user_id && !row.discord_stopped_reason) {
        wanted.push('discord');
      }
      const list = channelsOf.get(row.handle_id) ?? [];
      const filter = compileFilter(filterOfLink(row));
      for (const channel of wanted) {
        if (options.channels.includes(channel)) list.push({ userId: row.user_id, channel, filter });
      }
      channelsOf.set(row.handle_id, list);
      preferencesOf.set(row.user_id, parsePreferences(row.notification_preferences));
    }

    const values = pending.flatMap((tweet) => {
      // Each follower's verdict once per tweet (both channels share it), the text read once.
      let prepared: PreparedText | undefined;
      const verdicts = new Map<number, string | null>();
      const heldBack = (userId: number, filter: CompiledFilter) => {
        let reason = verdicts.get(userId);
        if (reason === undefined) {
          prepared ??= prepareText(tweet.text);
          reason = filter.heldBackReason(
            { text: tweet.text, media: mediaOf(tweet.media) },
            prepared,
          );
          verdicts.set(userId, reason);
        }
        return reason;
      };
      return (channelsOf.get(tweet.handle_id) ?? [])
        .filter(({ userId }) => {
          const preferences = preferencesOf.get(userId);
          return preferences !== undefined && allowsTweet(preferences, tweet, tweet.x_user_id);
        })
        .map(({ userId, channel, filter }) => {
          const reason = filter ? heldBack(userId, filter) : null;
          return {
            user_id: userId,
            handle_id: tweet.handle_id,
            tweet_id: tweet.tweet_id,
            channel,
            status: reason === null ? ('pending' as const) : ('filtered' as const),
            last_error: reason,
            attempts: 0,
            next_attempt_at: options.now,
            created_at: options.now,
          };
        });
    });
    const inserted = { pending: 0, filtered: 0 };
    for (const status of ['pending', 'filtered'] as const) {
      const rows = values.filter((row) => row.status === status);
      for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
        const result = await trx
          .insertInto('notification_outbox')
          .values(rows.slice(start, start + INSERT_CHUNK))
          .onConflict((oc) =>
            oc.columns(['user_id', 'handle_id', 'tweet_id', 'channel']).doNothing(),
          )
          .executeTakeFirst();
        inserted[status] += Number(result.numInsertedOrUpdatedRows ?? 0n);
      }
    }
    await wakeChats(
      trx,
      values.filter((row) => row.status === 'pending'),
      options.now,
    );
    await trx
      .updateTable('tweets')
      .set({ fanout_pending: false })
      .where(
        'id',
        'in',
        pending.map((tweet) => tweet.id),
      )
      .execute();
    return { tweets: pending.length, queued: inserted.pending, filtered: inserted.filtered };
  });
}

/** A stored media column (a JSON array); only whether it holds anything counts. */
function mediaOf(text: string): unknown[] {
  if (text === '[]' || text === '') return [];
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}

/** Who not to claim for now: users whose chat is busy or cooling down, or a whole channel. */
export type ClaimExclusions = Partial<Record<NotificationChannel, readonly number[] | 'all'>>;

export interface ClaimOptions {
  now: string;
  /** End of the claim's lease: the row and the chat are held until then (renewed while sending). */
  leaseUntil: string;
  /** The claiming worker; only it may mark what it claimed. */
  owner: string;
  exclude?: ClaimExclusions;
  /** More pending notices than this of one handle for the chat go as one digest (0: never). */
  digestAfter?: number;
  /** Most notices in one digest message. Default 20. */
  digestMax?: number;
}

/** A claimed delivery: one row, or the rows of one digest (`rows[0]` is the head). */
export interface Claim {
  rows: OutboxRow[];
  digest: boolean;
}

/** Candidates looked at per claim: chats another worker holds are skipped, not waited for. */
const CLAIM_CANDIDATES = 8;

/**
 * Takes a chat for one send, whichever process asks: the lock row is inserted, or taken over
 * once its lease ran out. The database decides, so two workers never send to one chat at once.
 */
async function lockChat(
  { db }: Db,
  channel: NotificationChannel,
  userId: number,
  owner: string,
  now: string,
  leaseUntil: string,
): Promise<boolean> {
  const result = await db
    .insertInto('delivery_chat_locks')
    .values({ channel, user_id: userId, owner, lease_until: leaseUntil })
    .onConflict((oc) =>
      oc
        .columns(['channel', 'user_id'])
        .doUpdateSet({ owner, lease_until: leaseUntil })
        .where((eb) =>
          eb.or([
            eb('delivery_chat_locks.lease_until', '<=', now),
            eb('delivery_chat_locks.owner', '=', owner),
          ]),
        ),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/**
 * Gives a chat back (the send is over). With `holdUntil`, other processes still keep off it
 * until then: the spacing the service wants between two messages to one chat holds across
 * processes (this process's own gate keeps it here).
 */
export async function unlockChat(
  { db }: Db,
  channel: NotificationChannel,
  userId: number,
  owner: string,
  holdUntil?: string,
): Promise<void> {
  if (holdUntil !== undefined) {
    await db
      .updateTable('delivery_chat_locks')
      .set({ lease_until: holdUntil })
      .where('channel', '=', channel)
      .where('user_id', '=', userId)
      .where('owner', '=', owner)
      .execute();
    return;
  }
  await db
    .deleteFrom('delivery_chat_locks')
    .where('channel', '=', channel)
    .where('user_id', '=', userId)
    .where('owner', '=', owner)
    .execute();
}

/**
 * Claims the next delivery: the oldest waiting row of a chat that is due, has no send in flight
 * by any process and is not excluded. Chats are visited in `delivery_chats.due_at` order, so the
 * cost of a claim does not grow with the rows waiting behind them. The chat is locked, its oldest
 * row moved to 'sending' under `owner` with a lease (`next_attempt_at` = lease end); each chat
 * thus gets its notices in order. A visited chat whose oldest row is not due (a retry later, a
 * send in flight) gets that time as its `due_at`, and one with nothing left becomes idle. When
 * more than `digestAfter` notices of the row's handle wait for that chat, all of them (up to
 * `digestMax`) are claimed with it, to go as one digest message.
 */
export async function claimNextDelivery(
  database: Db,
  options: ClaimOptions,
): Promise<Claim | undefined> {
  const { db } = database;
  let due = db
    .selectFrom('delivery_chats as c')
    .select(['c.channel', 'c.user_id', 'c.version'])
    .where('c.due_at', '<=', options.now)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('delivery_chat_locks as l')
            .select('l.user_id')
            .whereRef('l.user_id', '=', 'c.user_id')
            .whereRef('l.channel', '=', 'c.channel')
            .where('l.lease_until', '>', options.now)
            .where('l.owner', '!=', options.owner),
        ),
      ),
    );
  for (const [channel, users] of Object.entries(options.exclude ?? {})) {
    if (users === 'all') due = due.where('c.channel', '!=', channel as NotificationChannel);
    else if (users.length > 0) {
      due = due.where((eb) =>
        eb.or([
          eb('c.channel', '!=', channel as NotificationChannel),
          eb('c.user_id', 'not in', users),
        ]),
      );
    }
  }
  const chats = await due.orderBy('c.due_at').limit(CLAIM_CANDIDATES).execute();
  for (const chat of chats) {
    const locked = await lockChat(
      database,
      chat.channel,
      chat.user_id,
      options.owner,
      options.now,
      options.leaseUntil,
    );
    if (!locked) continue;
    const oldest = await db
      .selectFrom('notification_outbox')
      .select(['id', 'status', 'next_attempt_at'])
      .where('user_id', '=', chat.user_id)
      .where('channel', '=', chat.channel)
      .where('status', 'in', ['pending', 'sending'])
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    const ready = oldest?.status === 'pending' && oldest.next_attempt_at <= options.now;
    const head = ready
      ? await db
          .updateTable('notification_outbox')
          .set({
            status: 'sending',
            claimed_by: options.owner,
            next_attempt_at: options.leaseUntil,
          })
          .where('id', '=', oldest.id)
          .where('status', '=', 'pending')
          .returningAll()
          .executeTakeFirst()
      : undefined;
    if (!head) {
      // Nothing to send now: the chat waits for its oldest row's time (a retry, the lease of a
      // send in flight), or for new work when nothing waits.
      await settleChat(db, chat, oldest?.next_attempt_at ?? null);
      await unlockChat(database, chat.channel, chat.user_id, options.owner);
      continue;
    }
    const digestAfter = options.digestAfter ?? 0;
    if (digestAfter <= 0) return { rows: [head], digest: false };
    const others = await db
      .selectFrom('notification_outbox')
      .select('id')
      .where('user_id', '=', head.user_id)
      .where('channel', '=', head.channel)
      .where('handle_id', '=', head.handle_id)
      .where('status', '=', 'pending')
      .orderBy('id')
      .limit(Math.max(1, (options.digestMax ?? 20) - 1))
      .execute();
    if (others.length + 1 <= digestAfter) return { rows: [head], digest: false };
    const [first] = await db
      .updateTable('notification_outbox')
      .set({ digest_of: head.id })
      .where('id', '=', head.id)
      .returningAll()
      .execute();
    const rest = await db
      .updateTable('notification_outbox')
      .set({
        status: 'sending',
        claimed_by: options.owner,
        next_attempt_at: options.leaseUntil,
        digest_of: head.id,
      })
      .where(
        'id',
        'in',
        others.map((row) => row.id),
      )
      .where('status', '=', 'pending')
      .returningAll()
      .execute();
    rest.sort((a, b) => a.id - b.id);
    return { rows: [first ?? head, ...rest], digest: rest.length > 0 };
  }
  return undefined;
}

/** Keeps what `owner` holds (its rows in 'sending' and its chats) for another lease. */
export async function renewClaims({ db }: Db, owner: string, leaseUntil: string): Promise<void> {
  await db
    .updateTable('notification_outbox')
    .set({ next_attempt_at: leaseUntil })
    .where('status', '=', 'sending')
    .where('claimed_by', '=', owner)
    .execute();
  // Only the chats with a send in flight: a chat held after a send (its spacing) ends on time.
  await db
    .updateTable('delivery_chat_locks')
    .set({ lease_until: leaseUntil })
    .where('owner', '=', owner)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('notification_outbox as o')
          .select('o.id')
          .whereRef('o.user_id', '=', 'delivery_chat_locks.user_id')
          .whereRef('o.channel', '=', 'delivery_chat_locks.channel')
          .where('o.status', '=', 'sending')
          .where('o.claimed_by', '=', owner),
      ),
    )
    .execute();
}

/**
 * The service accepted the message: recorded at once, if the claim is still `owner`'s. `note`
 * says how it went when not as itself (as plain text, in a digest); the log shows it.
 */
export async function markSent(
  { db }: Db,
  ids: readonly number[],
  owner: string,
  values: { now: string; attempts: number; note?: string | null },
): Promise<number> {
  const result = await db
    .updateTable('notification_outbox')
    .set({
      status: 'sent',
      sent_at: values.now,
      attempts: values.attempts,
      last_error: values.note ?? null,
    })
    .where('id', 'in', ids)
    .where('status', '=', 'sending')
    .where('claimed_by', '=', owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** One more message of a multi-message notification was accepted. */
export async function markPartSent(
  { db }: Db,
  id: number,
  owner: string,
  partsSent: number,
): Promise<void> {
  await db
    .updateTable('notification_outbox')
    .set({ parts_sent: partsSent })
    .where('id', '=', id)
    .where('status', '=', 'sending')
    .where('claimed_by', '=', owner)
    .execute();
}

/** Back to pending (a digest's rows each alone again), to be tried at `nextAttemptAt`. */
export async function markRetry(
  { db }: Db,
  ids: readonly number[],
  owner: string,
  values: { nextAttemptAt: string; attempts: number; error: string },
): Promise<void> {
  await db
    .updateTable('notification_outbox')
    .set({
      status: 'pending',
      next_attempt_at: values.nextAttemptAt,
      attempts: values.attempts,
      last_error: values.error,
      claimed_by: null,
      digest_of: null,
    })
    .where('id', 'in', ids)
    .where('status', '=', 'sending')
    .where('claimed_by', '=', owner)
    .execute();
}

/**
 * Pending rows of a channel that were waiting for its recovery are due now: the backlog goes
 * out at once, oldest first, when the channel's circuit closes.
 */
export async function resumeChannel(
  { db }: Db,
  channel: NotificationChannel,
  now: string,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const resumed = await trx
      .updateTable('notification_outbox')
      .set({ next_attempt_at: now })
      .where('channel', '=', channel)
      .where('status', '=', 'pending')
      .where('next_attempt_at', '>', now)
      .returning(['channel', 'user_id'])
      .execute();
    await wakeChats(trx, resumed, now);
    return resumed.length;
  });
}

/**
 * Rows waiting since before `createdBefore` are given up as 'expired', visibly: `reason`, then
 * the last error the service gave, if any.
 */
export async function expireDeliveries(
  { db }: Db,
  createdBefore: string,
  reason: string,
): Promise<number> {
  const result = await db
    .updateTable('notification_outbox')
    .set({
      status: 'expired',
      last_error: sql<string>`${reason} || coalesce(' Last error: ' || last_error, '')`,
      claimed_by: null,
    })
    .where('status', '=', 'pending')
    .where('created_at', '<', createdBefore)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Ends a claimed delivery without sending it: 'failed' (refused) or 'cancelled' (unwanted). */
export async function markFinished(
  { db }: Db,
  ids: readonly number[],
  owner: string,
  values: {
    status: Extract<OutboxStatus, 'failed' | 'cancelled'>;
    attempts?: number;
    error: string;
  },
): Promise<void> {
  await db
    .updateTable('notification_outbox')
    .set({
      status: values.status,
      last_error: values.error,
      ...(values.attempts === undefined ? {} : { attempts: values.attempts }),
    })
    .where('id', 'in', ids)
    .where('status', '=', 'sending')
    .where('claimed_by', '=', owner)
    .execute();
}

/**
 * Cancels every pending delivery of a user (on one channel, or all), e.g. when the channel is
 * stopped or disconnected: no retry storm, and nothing sent to a chat the user left.
 */
export async function cancelPendingDeliveries(
  { db }: Db,
  userId: number,
  channel: NotificationChannel | null,
  reason: string,
): Promise<number> {
  let query = db
    .updateTable('notification_outbox')
    .set({ status: 'cancelled', last_error: reason })
    .where('user_id', '=', userId)
    .where('status', '=', 'pending');
  if (channel) query = query.where('channel', '=', channel);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Cancels a user's pending deliveries of one handle on one channel (its toggle went off). */
export async function cancelPendingForHandle(
  { db }: Db,
  userId: number,
  handleId: number,
  channel: NotificationChannel,
  reason: string,
): Promise<number> {
  const result = await db
    .updateTable('notification_outbox')
    .set({ status: 'cancelled', last_error: reason })
    .where('user_id', '=', userId)
    .where('handle_id', '=', handleId)
    .where('channel', '=', channel)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Puts deliveries whose lease ran out back to pending (a worker that crashed or hung), each
 * alone again. Live claims of other workers are left alone: they renew their leases.
 */
export async function releaseExpiredClaims({ db }: Db, now: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const released = await trx
      .updateTable('notification_outbox')
      .set({ status: 'pending', next_attempt_at: now, claimed_by: null, digest_of: null })
      .where('status', '=', 'sending')
      .where('next_attempt_at', '<=', now)
      .returning(['channel', 'user_id'])
      .execute();
    await trx.deleteFrom('delivery_chat_locks').where('lease_until', '<=', now).execute();
    await wakeChats(trx, released, now);
    return released.length;
  });
}

/** Everything `owner` still holds goes back to pending at once (it stops). */
export async function releaseOwnClaims({ db }: Db, owner: string, now: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const released = await trx
      .updateTable('notification_outbox')
      .set({ status: 'pending', next_attempt_at: now, claimed_by: null, digest_of: null })
      .where('status', '=', 'sending')
      .where('claimed_by', '=', owner)
      .returning(['channel', 'user_id'])
      .execute();
    await trx.deleteFrom('delivery_chat_locks').where('owner', '=', owner).execute();
    await wakeChats(trx, released, now);
    return released.length;
  });
}

/** What sending one delivery needs: the tweet, its handle, the user's channel settings. */
export interface DeliveryContext {
  tweet: TweetRow | undefined;
  handle: { username: string; display_name: string | null } | undefined;
  settings:
    | {
        telegram_chat_id: string | null;
        discord_user_id: string | null;
        telegram_stopped_reason: string | null;
        discord_stopped_reason: string | null;
        bot_running: boolean | number;
      }
    | undefined;
  /** The user's link to the handle (gone when they stopped following it). */
  link: { telegram_enabled: boolean | number; discord_enabled: boolean | number } | undefined;
}

export async function loadDeliveryContext({ db }: Db, row: OutboxRow): Promise<DeliveryContext> {
  const [tweet, handle, settings, link] = await Promise.all([
    db
      .selectFrom('tweets')
      .selectAll()
      .where('handle_id', '=', row.handle_id)
      .where('tweet_id', '=', row.tweet_id)
      .executeTakeFirst(),
    db
      .selectFrom('handles')
      .select(['username', 'display_name'])
      .where('id', '=', row.handle_id)
      .executeTakeFirst(),
    db
      .selectFrom('user_settings')
      .select([
        'telegram_chat_id',
        'discord_user_id',
        'telegram_stopped_reason',
        'discord_stopped_reason',
        'bot_running',
      ])
      .where('user_id', '=', row.user_id)
      .executeTakeFirst(),
    db
      .selectFrom('user_handles')
      .select(['telegram_enabled', 'discord_enabled'])
      .where('user_id', '=', row.user_id)
      .where('handle_id', '=', row.handle_id)
      .executeTakeFirst(),
  ]);
  return { tweet, handle, settings, link };
}

export interface DeliveryLogRow extends OutboxRow {
  username: string | null;
  text: string | null;
}

/** A user's latest deliveries, newest first (the Settings page's delivery log). */
export function listDeliveries(
  { db }: Db,
  userId: number,
  channel: NotificationChannel | undefined,
  limit: number,
): Promise<DeliveryLogRow[]> {
  let query = db
    .selectFrom('notification_outbox')
    .leftJoin('handles', 'handles.id', 'notification_outbox.handle_id')
    .leftJoin('tweets', (join) =>
      join
        .onRef('tweets.handle_id', '=', 'notification_outbox.handle_id')
        .onRef('tweets.tweet_id', '=', 'notification_outbox.tweet_id'),
    )
    .selectAll('notification_outbox')
    .select(['handles.username', 'tweets.text'])
    .where('notification_outbox.user_id', '=', userId);
  if (channel) query = query.where('notification_outbox.channel', '=', channel);
  return query
    .orderBy('notification_outbox.created_at', 'desc')
    .orderBy('notification_outbox.id', 'desc')
    .limit(limit)
    .execute();
}
