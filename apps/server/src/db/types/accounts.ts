/**
 * The tables of users, their sign-in and their security: accounts, sessions, invitations,
 * two-factor, connected X accounts and security events.
 */
import type { ColumnType, Generated } from 'kysely';
import type { Role } from '@perch/shared';
import type { Bool, GeneratedBool, Timestamp } from './columns.js';

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
  /** Sealed TOTP secret; null while two-factor sign-in is off. */
  totp_secret: ColumnType<string | null, string | null | undefined, string | null>;
  totp_enabled_at: ColumnType<Timestamp | null, Timestamp | null | undefined, Timestamp | null>;
  totp_pending_secret: ColumnType<string | null, string | null | undefined, string | null>;
  totp_last_step: ColumnType<number | null, number | null | undefined, number | null>;
  /** JSON object as text. */
  security_settings: ColumnType<string, string | undefined, string>;
}

export interface SessionsTable {
  /** SHA-256 of the cookie value, hex; the raw id is never stored. */
  id: string;
  user_id: number;
  created_at: Timestamp;
  /** Any request or heartbeat of the session, at most once a minute (the admin users list). */
  last_seen_at: Timestamp;
  /**
   * When the session ends: the idle timeout moved by the person's own activity, never past the
   * absolute lifetime from `created_at` (modules/auth/session-lifetime.ts).
   */
  expires_at: Timestamp;
  ip: string | null;
  user_agent: string | null;
  remember_me: Bool;
  revoked_at: Timestamp | null;
  /** When the person last gave their password or a two-factor code on it (step-up). */
  authenticated_at: ColumnType<Timestamp | null, Timestamp | null | undefined, Timestamp | null>;
}

export interface InvitationsTable {
  id: Generated<number>;
  /** SHA-256 (hex) of the code; the code itself is shown once, when made (migration 0019). */
  code_hash: string;
  /**
   * The first-start invitation's code sealed with the secret key (lib/token-cipher.ts), so every
   * start can print it until somebody registers; null for every other invitation.
   */
  code_sealed: ColumnType<string | null, string | null | undefined, string | null>;
  role: Role;
  max_uses: number;
  uses: Generated<number>;
  expires_at: Timestamp | null;
  /** Null for the invitation made at first start or by the CLI. */
  created_by: number | null;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
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

/** When the next sign-in attempt of an account (or unknown name) may start; see login-throttle.ts. */
export interface SignInHoldsTable {
  /** `account:<user id>` or `name:<lower-cased name>`. */
  key: string;
  next_attempt_at: Timestamp;
  claimed_until: Timestamp;
}

/** A user's X account connected with OAuth 2.0 (tokens encrypted at rest). */
export interface XAccountsTable {
  user_id: number;
  x_user_id: string;
  username: string;
  access_token: string;
  refresh_token: string | null;
  expires_at: Timestamp | null;
  scope: string | null;
  connected_at: Timestamp;
  updated_at: Timestamp;
}

/** A pending OAuth authorization (PKCE verifier), valid for a few minutes. */
export interface OauthStatesTable {
  state: string;
  user_id: number;
  code_verifier: string;
  redirect_uri: string;
  expires_at: Timestamp;
}

export type Severity = 'critical' | 'high' | 'medium' | 'low';

export interface SecurityEventsTable {
  id: Generated<number>;
  user_id: number | null;
  actor_id: number | null;
  event_type: string;
  severity: Severity;
  description: string;
  ip: string | null;
  user_agent: string | null;
  /** JSON object as text. */
  metadata: ColumnType<string, string | undefined, string>;
  created_at: Timestamp;
}

export interface RecoveryCodesTable {
  id: Generated<number>;
  user_id: number;
  code_hash: string;
  used_at: Timestamp | null;
  created_at: Timestamp;
}

/** A password accepted for a two-factor account, waiting for its code (cookie perch_2fa). */
export interface PendingLoginsTable {
  id: string;
  user_id: number;
  remember_me: GeneratedBool;
  ip: string | null;
  user_agent: string | null;
  attempts: Generated<number>;
  created_at: Timestamp;
  expires_at: Timestamp;
}
