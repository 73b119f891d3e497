import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../db/index.js';
import { countWords, WORD_COUNTS_VERSION, type WordDays } from '../../analytics/index.js';
import { tweetKind } from './stored-tweet.js';

/*
 * Word counts kept per handle and UTC day (tweet_word_days, migration 0024). A write that adds
 * posts to a day, or changes the text of one, moves the day's generation on and clears its
 * counts; an analytics request counts the words of a cleared or missing day from its posts once
 * and keeps them, but only under the generation it read before the posts, so counts made from
 * posts a concurrent write changed meanwhile are never kept.
 */

const DAY_MS = 86_400_000;

/** The UTC day of a stored time (`toISOString()` text). */
export function utcDayOf(storedTime: string): string {
  return storedTime.slice(0, 10);
}

/** The UTC days (YYYY-MM-DD) of [start, end), both on midnights UTC. */
function utcDays(span: { start: number; end: number }): string[] {
  const days: string[] = [];
  for (let at = span.start; at < span.end; at += DAY_MS) {
    days.push(new Date(at).toISOString().slice(0, 10));
  }
  return days;
}

/** SQLite: the days whose posts a write changed get their counts cleared (generation on). */
export async function clearWordDays(
  db: Executor,
  handleId: number,
  days: ReadonlySet<string>,
): Promise<void> {
  if (days.size === 0) return;
  await db
    .insertInto('tweet_word_days')
    .values([...days].map((day) => ({ handle_id: handleId, day, generation: 1, counts: null })))
    .onConflict((oc) =>
      oc.columns(['handle_id', 'day']).doUpdateSet((eb) => ({
        generation: eb('tweet_word_days.generation', '+', 1),
        counts: null,
      })),
    )
    .execute();
}

/**
 * PostgreSQL: `clearWordDays` as two CTEs of the page upsert (tweets.repository.ts), for the
 * days of the rows it inserted (`added`, returning `created_at`) and of the stored rows whose
 * text the page changes (`stored_input`: the page's rows it did not insert; their stored texts
 * read from the statement's snapshot, before the update).
 */
export function clearWordDaysCtes(handleId: number): RawBuilder<unknown> {
  return sql`text_changed as (
      select tweets.created_at from tweets join stored_input as input
        on tweets.handle_id = input.handle_id and tweets.tweet_id = input.tweet_id
      where tweets.text is distinct from input.text
    ), cleared_word_days as (
      insert into tweet_word_days (handle_id, day, generation)
      select distinct ${handleId}::integer, substr(changed.created_at, 1, 10), 1
      from (select created_at from added union all select created_at from text_changed) as changed
      on conflict (handle_id, day) do update
        set generation = tweet_word_days.generation + 1, counts = null
    ),`;
}

/**
 * Kept counts as `counts` stores them: the version of the counting (WORD_COUNTS_VERSION), then
 * the word and count pairs, flattened: `[1, "word", 3, "other", 1]`.
 */
type FlatCounts = (string | number)[];

/** Adds kept counts to `into`; false, adding nothing, when they were counted another way. */
function addFlat(into: Map<string, number>, flat: FlatCounts): boolean {
  if (flat[0] !== WORD_COUNTS_VERSION) return false;
  for (let i = 1; i + 1 < flat.length; i += 2) {
    const word = flat[i] as string;
    into.set(word, (into.get(word) ?? 0) + (flat[i + 1] as number));
  }
  return true;
}

function flatten(counts: ReadonlyMap<string, number>): string {
  const flat: FlatCounts = [WORD_COUNTS_VERSION];
  for (const [word, count] of counts) flat.push(word, count);
  return JSON.stringify(flat);
}

/**
 * The word counts of a handle's posts created in `span` (whole UTC days): the sum of the kept
 * counts of its days, with the days not kept (or cleared since) counted from their posts and
 * kept for the next request.
 */
export async function wordCountsOfDays(
  db: Executor,
  handleId: number,
  span: { start: number; end: number },
): Promise<WordDays> {
  const days = utcDays(span);
  const rows = await db
    .selectFrom('tweet_word_days')
    .select(['day', 'generation', 'counts'])
    .where('handle_id', '=', handleId)
    .where('day', '>=', days[0]!)
    .where('day', '<=', days.at(-1)!)
    .execute();
  const counts = new Map<string, number>();
  const kept = new Map(rows.map((row) => [row.day, row]));
  const missing: string[] = [];
  for (const day of days) {
    const row = kept.get(day);
    if (!row?.counts || !addFlat(counts, JSON.parse(row.counts) as FlatCounts)) missing.push(day);
  }
  if (missing.length > 0) {
    const counted = await countDays(db, handleId, missing);
    for (const dayCounts of counted.values()) {
      for (const [word, count] of dayCounts) counts.set(word, (counts.get(word) ?? 0) + count);
    }
    await keepWordDays(
      db,
      handleId,
      [...counted].map(([day, dayCounts]) => ({
        day,
        generation: kept.get(day)?.generation,
        counts: dayCounts,
      })),
    );
  }
  return { start: span.start, end: span.end, counts };
}

/** The word counts of each of `days` (ascending) from the posts stored now. */
async function countDays(
  db: Executor,
  handleId: number,
  days: readonly string[],
): Promise<Map<string, Map<string, number>>> {
  const wanted = new Set(days);
  const last = Date.parse(`${days.at(-1)!}T00:00:00.000Z`) + DAY_MS;
  const rows = await db
    .selectFrom('tweets')
    .select(['created_at', 'text', 'referenced_types'])
    .where('handle_id', '=', handleId)
    .where('created_at', '>=', `${days[0]!}T00:00:00.000Z`)
    .where('created_at', '<', new Date(last).toISOString())
    .execute();
  const texts = new Map<string, string[]>(days.map((day) => [day, []]));
  for (const row of rows) {
    const day = utcDayOf(row.created_at);
    if (wanted.has(day) && !tweetKind(row.referenced_types).isRetweet) {
      texts.get(day)!.push(row.text);
    }
  }
  return new Map([...texts].map(([day, list]) => [day, countWords(list)]));
}

/** A day's counts, counted after reading its row's `generation` (undefined: it had no row). */
export interface CountedDay {
  day: string;
  generation: number | undefined;
  counts: ReadonlyMap<string, number>;
}

/**
 * Keeps days' counts: each over its cleared row if the row's generation is still the one read
 * before the posts, and the days that had no row as new rows, in one insert (a row a write
 * made meanwhile wins).
 */
export async function keepWordDays(
  db: Executor,
  handleId: number,
  days: readonly CountedDay[],
): Promise<void> {
  const fresh = days.filter((day) => day.generation === undefined);
  if (fresh.length > 0) {
    await db
      .insertInto('tweet_word_days')
      .values(
        fresh.map(({ day, counts }) => ({
          handle_id: handleId,
          day,
          generation: 0,
          counts: flatten(counts),
        })),
      )
      .onConflict((oc) => oc.columns(['handle_id', 'day']).doNothing())
      .execute();
  }
  for (const { day, generation, counts } of days) {
    if (generation === undefined) continue;
    await db
      .updateTable('tweet_word_days')
      .set({ counts: flatten(counts) })
      .where('handle_id', '=', handleId)
      .where('day', '=', day)
      .where('generation', '=', generation)
      .execute();
  }
}
