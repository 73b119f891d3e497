/**
 * Claims on outbox rows: which worker sends which row, under a lease it renews while sending.
 * A claimed row is 'sending' with `claimed_by` its worker and `next_attempt_at` the lease's end.
 */
import { sql } from 'kysely';
import type { Db, Executor } from '../db/index.js';
import type { OutboxChannel } from '../db/types.js';
import {
  lockChat,
  settleChat,
  unlockChat,
  wakeChats,
  type ChatKey,
} from './delivery-chats.repository.js';
import { goesAsDigest } from './fan-out-rules.js';
import type { OutboxRow } from './outbox.repository.js';
import { ANY_WEBHOOK_CHANNEL, isWebhookChannel } from './webhook/webhook-channel.js';

/**
 * Who not to claim for now: users whose chat is busy or cooling down, or a whole channel.
 * `webhook` stands for every webhook endpoint at once (their shared slots are all busy).
 */
export type ClaimExclusions = Partial<Record<OutboxChannel | 'webhook', readonly number[] | 'all'>>;

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
 * Claims the next delivery: the oldest waiting row of a chat that is due, has no send in flight
 * by any process and is not excluded. Chats are visited in `delivery_chats.due_at` order, so the
 * cost of a claim does not grow with the rows waiting behind them. The chat is locked, its oldest
 * row moved to 'sending' under `owner` with a lease (`next_attempt_at` = lease end); each chat
 * thus gets its notices in order. A visited chat whose oldest row is not due (a retry later, a
 * send in flight) gets that time as its `due_at`, and one with nothing left becomes idle. When
 * more than `digestAfter` notices of the row's handle wait for that chat, all of them (up to
 * `digestMax`) are claimed with it, to go as one digest message.
 */
export async function claimNextDelivery(db: Db, options: ClaimOptions): Promise<Claim | undefined> {
  const chats = await dueChats(db.db, options);
  for (const chat of chats) {
    const { channel, user_id } = chat;
    const locked = await lockChat(
      db.db,
      channel,
      user_id,
      options.owner,
      options.now,
      options.leaseUntil,
    );
    if (!locked) continue;
    const head = await claimOldestRow(db.db, chat, options);
    if (head) return withDigest(db.db, head, options);
    await unlockChat(db.db, channel, user_id, options.owner);
  }
  return undefined;
}

/** The chats due now that no other worker holds and that are not excluded, soonest first. */
function dueChats(db: Executor, options: ClaimOptions) {
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
    if (!users) continue;
    if (channel === 'webhook') {
      if (users === 'all') due = due.where(sql<boolean>`c.channel not like ${ANY_WEBHOOK_CHANNEL}`);
    } else if (users === 'all') due = due.where('c.channel', '!=', channel as OutboxChannel);
    else if (users.length > 0) {
      due = due.where((eb) =>
        eb.or([eb('c.channel', '!=', channel as OutboxChannel), eb('c.user_id', 'not in', users)]),
      );
    }
  }
  return due.orderBy('c.due_at').limit(CLAIM_CANDIDATES).execute();
}

/**
 * Claims a locked chat's oldest waiting row when it is due. Otherwise the chat waits for its
 * oldest row's time (a retry, the lease of a send in flight), or for new work when nothing
 * waits, and undefined is returned.
 */
async function claimOldestRow(
  db: Executor,
  chat: ChatKey & { version: number },
  options: ClaimOptions,
): Promise<OutboxRow | undefined> {
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
        .set({ status: 'sending', claimed_by: options.owner, next_attempt_at: options.leaseUntil })
        .where('id', '=', oldest.id)
        .where('status', '=', 'pending')
        .returningAll()
        .executeTakeFirst()
    : undefined;
  if (!head) await settleChat(db, chat, oldest?.next_attempt_at ?? null);
  return head;
}

/**
 * The claim of a row: alone, or with the other waiting notices of its handle for that chat when
 * they go as a digest (goesAsDigest), all of them claimed and marked as the head's digest.
 */
async function withDigest(db: Executor, head: OutboxRow, options: ClaimOptions): Promise<Claim> {
  const digestAfter = options.digestAfter ?? 0;
  // A webhook gets every event as itself (receivers are programs), and an alert is never folded
  // into a digest of posts.
  const alone = isWebhookChannel(head.channel) || head.alert_firing_id !== null;
  if (digestAfter <= 0 || alone) return { rows: [head], digest: false };
  const others = await db
    .selectFrom('notification_outbox')
    .select('id')
    .where('user_id', '=', head.user_id)
    .where('channel', '=', head.channel)
    .where('handle_id', '=', head.handle_id)
    .where('status', '=', 'pending')
    .where('alert_firing_id', 'is', null)
    .orderBy('id')
    .limit(Math.max(1, (options.digestMax ?? 20) - 1))
    .execute();
  if (!goesAsDigest(others.length + 1, digestAfter)) return { rows: [head], digest: false };
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

/** Keeps what `owner` holds (its rows in 'sending' and its chats) for another lease. */
export async function renewClaims(db: Executor, owner: string, leaseUntil: string): Promise<void> {
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
 * Puts deliveries whose lease ran out back to pending (a worker that crashed or hung), each
 * alone again. Live claims of other workers are left alone: they renew their leases.
 */
export async function releaseExpiredClaims(db: Executor, now: string): Promise<number> {
  return releaseClaims(db, now, null);
}

/** Everything `owner` still holds goes back to pending at once (it stops). */
export async function releaseOwnClaims(db: Executor, owner: string, now: string): Promise<number> {
  return releaseClaims(db, now, owner);
}

/**
 * Puts the deliveries being sent back to pending, each alone again, and frees their chats:
 * those of `owner`, or (null) those whose lease ran out by `now`. Answers how many.
 */
async function releaseClaims(db: Executor, now: string, owner: string | null): Promise<number> {
  return db.transaction().execute(async (trx) => {
    let claims = trx
      .updateTable('notification_outbox')
      .set({ status: 'pending', next_attempt_at: now, claimed_by: null, digest_of: null })
      .where('status', '=', 'sending');
    let locks = trx.deleteFrom('delivery_chat_locks');
    if (owner === null) {
      claims = claims.where('next_attempt_at', '<=', now);
      locks = locks.where('lease_until', '<=', now);
    } else {
      claims = claims.where('claimed_by', '=', owner);
      locks = locks.where('owner', '=', owner);
    }
    const released = await claims.returning(['channel', 'user_id']).execute();
    await locks.execute();
    await wakeChats(trx, released, now);
    return released.length;
  });
}
