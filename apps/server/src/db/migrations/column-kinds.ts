import { sql, type ColumnDefinitionBuilder, type RawBuilder } from 'kysely';
import type { Dialect } from '../index.js';

/** Column types that differ between SQLite and Postgres, for the migrations. */
export interface ColumnKinds {
  id: 'integer' | 'serial';
  primaryKey(col: ColumnDefinitionBuilder): ColumnDefinitionBuilder;
  bool: 'integer' | 'boolean';
  false: RawBuilder<unknown>;
}

export function columnKinds(dialect: Dialect): ColumnKinds {
  if (dialect === 'postgres') {
    return {
      id: 'serial',
      primaryKey: (col) => col.primaryKey(),
      bool: 'boolean',
      false: sql`false`,
    };
  }
  return {
    id: 'integer',
    primaryKey: (col) => col.primaryKey().autoIncrement(),
    bool: 'integer',
    false: sql`0`,
  };
}
