import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../index.js';

/**
 * PostgreSQL: the search index (`tweet_search`, 0012) kept by statement, not by row.
 *
 * A page of 100 new posts used to run the row trigger 100 times, each a PL/pgSQL call, an
 * insert with its conflict check, and a foreign-key check back into `tweets`: together about
 * half of the page's write. Now one trigger per statement inserts the words of all the rows it
 * added from its transition table, and another removes the rows of deleted posts (a handle's
 * cascade included), which is what the foreign key's ON DELETE CASCADE did. A changed text is
 * still indexed again by the row trigger of 0012 (rare, and a trigger on a column list cannot
 * have a transition table).
 *
 * SQLite's FTS5 index is unchanged.
 */
export function searchIndexByStatement(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'sqlite') return;
      await sql`drop trigger tweet_search_insert on tweets`.execute(db);
      await sql`
        create function tweet_search_add() returns trigger language plpgsql as $$
        begin
          insert into tweet_search (tweet_row_id, handle_id, document)
          select id, handle_id, to_tsvector('simple', text) from added_rows;
          return null;
        end
        $$`.execute(db);
      await sql`
        create trigger tweet_search_insert after insert on tweets
        referencing new table as added_rows
        for each statement execute function tweet_search_add()`.execute(db);
      await sql`
        create function tweet_search_remove() returns trigger language plpgsql as $$
        begin
          delete from tweet_search where tweet_row_id in (select id from removed_rows);
          return null;
        end
        $$`.execute(db);
      await sql`
        create trigger tweet_search_delete after delete on tweets
        referencing old table as removed_rows
        for each statement execute function tweet_search_remove()`.execute(db);
      await sql`
        alter table tweet_search drop constraint tweet_search_tweet_row_id_fkey`.execute(db);
    },

    async down(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'sqlite') return;
      await sql`
        delete from tweet_search where tweet_row_id not in (select id from tweets)`.execute(db);
      await sql`
        alter table tweet_search add constraint tweet_search_tweet_row_id_fkey
        foreign key (tweet_row_id) references tweets (id) on delete cascade`.execute(db);
      await sql`drop trigger tweet_search_delete on tweets`.execute(db);
      await sql`drop function tweet_search_remove()`.execute(db);
      await sql`drop trigger tweet_search_insert on tweets`.execute(db);
      await sql`drop function tweet_search_add()`.execute(db);
      await sql`
        create trigger tweet_search_insert after insert on tweets
        for each row execute function tweet_search_sync()`.execute(db);
    },
  };
}
