import type { ColumnType } from 'kysely';

/**
 * A boolean column: `boolean` on Postgres, 0/1 on SQLite. Written as a boolean (the SQLite
 * SQLite statement adapter binds it as 0/1); read back through `Boolean()` in the repositories.
 */
export type Bool = ColumnType<boolean | number, boolean, boolean>;
/** A boolean column with a default: may be left out on insert. */
export type GeneratedBool = ColumnType<boolean | number, boolean | undefined, boolean>;

/** Times are ISO-8601 UTC strings in both dialects (see docs/decisions.md). */
export type Timestamp = string;
