/**
 * The chats deliveries go to, as the database keeps them for every process: when each chat's
 * next notice is due (`delivery_chats`) and which worker is sending to it (`delivery_chat_locks`).
 */
import { sql } from 'kysely';
import type { Executor } from '../db/index.js';
import type { OutboxChannel } from '../db/types.js';

/** Rows per INSERT, far below both databases' parameter limits. */
const INSERT_CHUNK = 500;

/** A chat: one user's Telegram or Discord. */
export interface ChatKey {
  channel: OutboxChannel;
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
export async function settleChat(
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

/**
 * Takes a chat for one send, whichever process asks: the lock row is inserted, or taken over
 * once its lease ran out. The database decides, so two workers never send to one chat at once.
 */
export async function lockChat(
  db: Executor,
  channel: OutboxChannel,
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
  db: Executor,
  channel: OutboxChannel,
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
