import { sql, type Kysely } from 'kysely';
import type { ColumnKinds } from './column-kinds.js';

/**
 * Posts waiting for their alert rules in a small table of their own, instead of the indexed
 * `tweets.alerts_pending` column of 0021. Clearing that column rewrote a row of the largest
 * table, with an entry in each of its indexes (PostgreSQL cannot update an indexed column in
 * place), for every post of every page; a mark is a row of its own, added by the write that
 * stores the post or its new numbers and deleted once the rules have looked at it.
 *
 * - `alert_marks.tweet_row`: the post (`tweets.id`). Marked again while marked, it keeps one
 *   row, whose claim is dropped so the new numbers are looked at too. No foreign key: checking
 *   it would cost every page a look-up per post, and the mark of a post deleted since is
 *   claimed and deleted like the others (row ids are never reused).
 * - `claim` / `claimed_until`: the evaluation that took the mark (a token of its own) and until
 *   when; another worker takes it only after that, so each mark is evaluated by one worker at a
 *   time, and one that crashed is evaluated again (the firings are unique, so nothing doubles).
 *
 * Posts marked under 0021 keep their mark.
 */
export function alertMarks(kinds: ColumnKinds) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('alert_marks')
        .addColumn('tweet_row', 'integer', (col) => col.primaryKey())
        .addColumn('marked_at', 'text', (col) => col.notNull())
        .addColumn('claim', 'text')
        .addColumn('claimed_until', 'text')
        .execute();
      await sql`
        insert into alert_marks (tweet_row, marked_at)
        select id, updated_at from tweets where alerts_pending = ${sql.raw(kinds.bool === 'boolean' ? 'true' : '1')}
      `.execute(db);
      await db.schema.dropIndex('tweets_alerts_pending_idx').execute();
      await db.schema.alterTable('tweets').dropColumn('alerts_pending').execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('tweets')
        .addColumn('alerts_pending', kinds.bool, (col) => col.notNull().defaultTo(kinds.false))
        .execute();
      await db.schema
        .createIndex('tweets_alerts_pending_idx')
        .on('tweets')
        .columns(['alerts_pending', 'handle_id'])
        .execute();
      await sql`
        update tweets set alerts_pending = ${sql.raw(kinds.bool === 'boolean' ? 'true' : '1')}
        where id in (select tweet_row from alert_marks)
      `.execute(db);
      await db.schema.dropTable('alert_marks').execute();
    },
  };
}
