import { sql, type RawBuilder } from 'kysely';

/** Posting order in SQL: lib/posting-order.ts says what the order is and why. */

/**
 * The length of a post id column, to order by just before the column itself: together they
 * order decimal ids by value on SQLite and PostgreSQL alike.
 */
export function postIdLength(column: string): RawBuilder<number> {
  return sql<number>`length(${sql.ref(column)})`;
}
