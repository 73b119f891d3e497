import type { Kysely } from 'kysely';
import type { ColumnKinds } from './column-kinds.js';

/**
 * Notification filters and feeds.
 * - `user_handles.filter_include` / `filter_exclude` (JSON arrays of words or phrases) and
 *   `filter_media_only`: each user's filter of a handle, applied at fan-out. They live on the
 *   link, so unfollowing a handle forgets its filter.
 * - `feed_tokens`: one secret per user for the RSS and JSON feeds. The SHA-256 of the token
 *   finds the user; the token itself is kept sealed (AES-256-GCM, token-cipher.ts) so Settings
 *   can show the addresses again.
 */
export function filtersAndFeeds(kinds: ColumnKinds) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('user_handles')
        .addColumn('filter_include', 'text', (col) => col.notNull().defaultTo('[]'))
        .execute();
      await db.schema
        .alterTable('user_handles')
        .addColumn('filter_exclude', 'text', (col) => col.notNull().defaultTo('[]'))
        .execute();
      await db.schema
        .alterTable('user_handles')
        .addColumn('filter_media_only', kinds.bool, (col) => col.notNull().defaultTo(kinds.false))
        .execute();

      await db.schema
        .createTable('feed_tokens')
        .addColumn('user_id', 'integer', (col) =>
          col.primaryKey().references('users.id').onDelete('cascade'),
        )
        .addColumn('token_hash', 'text', (col) => col.notNull().unique())
        .addColumn('token_sealed', 'text', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('feed_tokens').execute();
      await db.schema.alterTable('user_handles').dropColumn('filter_media_only').execute();
      await db.schema.alterTable('user_handles').dropColumn('filter_exclude').execute();
      await db.schema.alterTable('user_handles').dropColumn('filter_include').execute();
    },
  };
}
