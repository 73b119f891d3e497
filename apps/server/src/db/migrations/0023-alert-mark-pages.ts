import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../index.js';
import type { ColumnKinds } from './column-kinds.js';

/**
 * One alert mark per write instead of one per post (0022). A page of 100 posts found by
 * monitoring cost 100 mark rows written, 100 claimed and 100 deleted, each with its primary key
 * entry, which was most of what alert evaluation added to storing the page; now it is one row
 * of each.
 *
 * - `alert_marks.id`: in marking order. `handle_id`: the posts' handle. `tweet_rows`: the posts
 *   (`tweets.id`), a JSON array in storing order. A post marked again while its mark waits gets
 *   a second mark; the evaluation reads it once per batch, and its firings are unique anyway.
 *   No foreign keys, as in 0022: a post deleted since is skipped, and row ids are never reused.
 * - `claim` / `claimed_until`: as in 0022, per mark.
 *
 * Posts marked under 0022 keep their marks (one per handle), and the migration rolls back to
 * one mark per post.
 */
export function alertMarkPages(kinds: ColumnKinds, dialect: Dialect) {
  const postgres = dialect === 'postgres';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('alert_marks').renameTo('alert_marks_0022').execute();
      await db.schema
        .createTable('alert_marks')
        .addColumn('id', kinds.id, kinds.primaryKey)
        .addColumn('handle_id', 'integer', (col) => col.notNull())
        .addColumn('tweet_rows', 'text', (col) => col.notNull())
        .addColumn('marked_at', 'text', (col) => col.notNull())
        .addColumn('claim', 'text')
        .addColumn('claimed_until', 'text')
        .execute();
      const rows = postgres
        ? sql`json_agg(marks.tweet_row order by marks.tweet_row)::text`
        : sql`json_group_array(marks.tweet_row order by marks.tweet_row)`;
      await sql`
        insert into alert_marks (handle_id, tweet_rows, marked_at)
        select tweets.handle_id, ${rows}, max(marks.marked_at)
        from alert_marks_0022 as marks join tweets on tweets.id = marks.tweet_row
        group by tweets.handle_id
        order by tweets.handle_id`.execute(db);
      await db.schema.dropTable('alert_marks_0022').execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('alert_marks').renameTo('alert_marks_0023').execute();
      await db.schema
        .createTable('alert_marks')
        .addColumn('tweet_row', 'integer', (col) => col.primaryKey())
        .addColumn('marked_at', 'text', (col) => col.notNull())
        .addColumn('claim', 'text')
        .addColumn('claimed_until', 'text')
        .execute();
      const posts = postgres
        ? sql`cross join lateral json_array_elements_text(marks.tweet_rows::json) as post(value)`
        : sql`cross join json_each(marks.tweet_rows) as post`;
      const post = postgres ? sql`post.value::integer` : sql`post.value`;
      await sql`
        insert into alert_marks (tweet_row, marked_at)
        select ${post}, max(marks.marked_at) from alert_marks_0023 as marks ${posts}
        group by ${post}`.execute(db);
      await db.schema.dropTable('alert_marks_0023').execute();
    },
  };
}
