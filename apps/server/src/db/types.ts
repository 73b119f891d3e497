import type { ColumnType, Generated } from 'kysely';
import type { Role } from '@perch/shared';

/**
 * A boolean column: `boolean` on Postgres, 0/1 on SQLite. Written as a boolean (the SQLite
 * SQLite statement adapter binds it as 0/1); read back through `Boolean()` in the repositories.
 */
export type Bool = ColumnType<boolean | number, boolean, boolean>;

/** Times are ISO-8601 UTC strings in both dialects (see docs/decisions.md). */
export type Timestamp = string;

export interface UsersTable {
  id: Generated<number>;
  username: string;
  email: string;
  password_hash: string;
  is_admin: Bool;
  is_super_admin: Bool;
  /** JSON object as text. */
  profile: string | null;
  created_at: Timestamp;
  last_login_at: Timestamp | null;
}

export interface SessionsTable {
  /** SHA-256 of the cookie value, hex; the raw id is never stored. */
  id: string;
  user_id: number;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
  ip: string | null;
  user_agent: string | null;
  remember_me: Bool;
  revoked_at: Timestamp | null;
}

export interface InvitationsTable {
  id: Generated<number>;
  code: string;
  role: Role;
  max_uses: number;
  uses: Generated<number>;
  expires_at: Timestamp | null;
  /** Null for the invitation made at first start or by the CLI. */
  created_by: number | null;
  created_at: Timestamp;
}

export interface LoginAttemptsTable {
  id: Generated<number>;
  /** The name typed at sign-in, lower-cased. */
  login: string;
  user_id: number | null;
  ip: string;
  user_agent: string | null;
  success: Bool;
  created_at: Timestamp;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  invitations: InvitationsTable;
  login_attempts: LoginAttemptsTable;
}
