import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../index.js';

/**
 * Tweet browsing: full-text search of tweet text, and the orders the browser sorts by.
 * - SQLite: `tweets_fts`, an FTS5 index over `tweets.text` that reads the text from `tweets`
 *   (external content, so the text is not stored twice), kept in step by triggers and filled
 *   from the rows already stored. Case-folding words (unicode61), diacritics kept, as
 *   PostgreSQL's 'simple' configuration does.
 * - PostgreSQL: `tweet_search`, each tweet's `to_tsvector('simple', text)` (and its handle)
 *   under a GIN index, kept in step by a trigger and filled from the rows already stored.
 * - PostgreSQL: indexes for "most liked" and "most engaged" per handle. SQLite has none for
 *   the orders or the type filters: each measured cost a third to a half of its backfill write
 *   speed, for browsing that stays fast without them (docs/benchmarks.md, Tweet search).
 */
export function tweetSearch(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'sqlite') {
        await sql`
          create virtual table tweets_fts using fts5(
            text,
            content = 'tweets',
            content_rowid = 'id',
            tokenize = "unicode61 remove_diacritics 0 categories 'L* N* Co M*'"
          )`.execute(db);
        await sql`
          create trigger tweets_fts_insert after insert on tweets begin
            insert into tweets_fts (rowid, text) values (new.id, new.text);
          end`.execute(db);
        await sql`
          create trigger tweets_fts_delete after delete on tweets begin
            insert into tweets_fts (tweets_fts, rowid, text) values ('delete', old.id, old.text);
          end`.execute(db);
        // Every upsert of a stored tweet sets its text again: re-index only when it changed.
        await sql`
          create trigger tweets_fts_update after update of text on tweets
          when old.text is not new.text begin
            insert into tweets_fts (tweets_fts, rowid, text) values ('delete', old.id, old.text);
            insert into tweets_fts (rowid, text) values (new.id, new.text);
          end`.execute(db);
        await sql`insert into tweets_fts (tweets_fts) values ('rebuild')`.execute(db);
      } else {
        // The words of each tweet, computed once when its text is stored (a search that
        // matches most tweets then never runs to_tsvector over all of them), beside the
        // handle so a search's count never reads the tweets themselves.
        await sql`
          create table tweet_search (
            tweet_row_id integer primary key references tweets (id) on delete cascade,
            handle_id integer not null,
            document tsvector not null
          )`.execute(db);
        await sql`
          create function tweet_search_sync() returns trigger language plpgsql as $$
          begin
            insert into tweet_search (tweet_row_id, handle_id, document)
            values (new.id, new.handle_id, to_tsvector('simple', new.text))
            on conflict (tweet_row_id) do update set document = excluded.document;
            return null;
          end
          $$`.execute(db);
        await sql`
          create trigger tweet_search_insert after insert on tweets
          for each row execute function tweet_search_sync()`.execute(db);
        // Every upsert of a stored tweet sets its text again: re-index only when it changed.
        await sql`
          create trigger tweet_search_update after update of text on tweets
          for each row when (old.text is distinct from new.text)
          execute function tweet_search_sync()`.execute(db);
        await sql`
          insert into tweet_search (tweet_row_id, handle_id, document)
          select id, handle_id, to_tsvector('simple', text) from tweets`.execute(db);
        await sql`
          create index tweet_search_document_idx on tweet_search using gin (document)`.execute(db);
        // "Most liked" and "most engaged" read their first page from these instead of sorting
        // every tweet of the handle (engagement as docs/analytics.md defines it, as the query has it).
        await db.schema
          .createIndex('tweets_handle_likes_idx')
          .on('tweets')
          .columns(['handle_id', 'like_count', 'created_at'])
          .execute();
        await db.schema
          .createIndex('tweets_handle_engagement_idx')
          .on('tweets')
          .expression(
            sql`handle_id, (like_count + retweet_count + reply_count + quote_count), created_at`,
          )
          .execute();
      }
    },

    async down(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'sqlite') {
        for (const trigger of ['tweets_fts_update', 'tweets_fts_delete', 'tweets_fts_insert']) {
          await sql`drop trigger ${sql.id(trigger)}`.execute(db);
        }
        await sql`drop table tweets_fts`.execute(db);
      } else {
        await db.schema.dropIndex('tweets_handle_engagement_idx').execute();
        await db.schema.dropIndex('tweets_handle_likes_idx').execute();
        await sql`drop trigger tweet_search_update on tweets`.execute(db);
        await sql`drop trigger tweet_search_insert on tweets`.execute(db);
        await sql`drop function tweet_search_sync()`.execute(db);
        await sql`drop table tweet_search`.execute(db);
      }
    },
  };
}
