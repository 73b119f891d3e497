/**
 * The tables of the x-web source: its accounts, GraphQL operations and their pins, shared
 * state and request leases.
 */
import type { Generated } from 'kysely';
import type { Timestamp } from './columns.js';

/** Where an x-web collector account stands (migration 0014). */
export type XWebAccountStatus =
  /** Signed in (or cookies given): used for collection. */
  | 'ACTIVE'
  /** Credentials given, not signed in yet: the source signs in once when it needs the account. */
  | 'NEEDS_LOGIN'
  /** The sign-in waits for a code X emailed (the super admin's verification panel). */
  | 'AWAITING_INPUT'
  /** The sign-in failed: it waits for an admin (no automatic retry). */
  | 'FAILED'
  /** X locked the account (error 326): an admin unlocks it on x.com, then resets it here. */
  | 'LOCKED'
  /** X suspended the account (error 64). */
  | 'SUSPENDED'
  /** The session ended (errors 32/89, 403): new cookies or a new sign-in are needed. */
  | 'EXPIRED';

export interface XWebAccountsTable {
  id: Generated<number>;
  /** Lower case, without the @. */
  username: string;
  auth_method: 'cookies' | 'credentials';
  /** Encrypted JSON: { password, email, totpSecret } or { authToken, ct0 }. */
  secrets: string;
  /** Encrypted JSON of the session's cookies (auth_token, ct0, ...); null until signed in. */
  session: string | null;
  /** Encrypted JSON of a sign-in flow waiting for a code (flow token, guest token, cookies). */
  flow: string | null;
  status: XWebAccountStatus;
  /** Why the account is out (X's words), or null. */
  status_reason: string | null;
  /** The sign-in step waiting for input (e.g. LoginAcid), while AWAITING_INPUT. */
  challenge_step: string | null;
  /** What X said it sent where (e.g. 'Check your email'), while AWAITING_INPUT. */
  challenge_hint: string | null;
  challenge_since: Timestamp | null;
  /** JSON: { [operation]: { limit, remaining, resetAt } } as X's headers told. */
  limits: Generated<string>;
  last_error: string | null;
  last_error_at: Timestamp | null;
  last_used_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A GraphQL operation as last read from x.com's client bundle (migration 0015). */
export interface XWebOperationsTable {
  name: string;
  query_id: string;
  /** JSON object: feature name -> boolean. */
  features: string;
  /** JSON object: field toggle name -> boolean. */
  field_toggles: string;
  /** When the bundle last showed these values. */
  seen_at: Timestamp;
  updated_at: Timestamp;
}

/** An operation's values pinned by an operator (Admin page): used instead of the bundle's. */
export interface XWebOperationPinsTable {
  name: string;
  query_id: string;
  /** JSON object, or null: the features in use are kept. */
  features: string | null;
  field_toggles: string | null;
  pinned_at: Timestamp;
  pinned_by: string | null;
}

/** The x-web source's shared state (one row, id 1). */
export interface XWebStateTable {
  id: number;
  /** The last look at x.com's client bundle, and the last one that succeeded. */
  ops_checked_at: Timestamp | null;
  ops_refreshed_at: Timestamp | null;
  /** Why the last look failed, or null. */
  ops_error: string | null;
  /** The pool waits until then: X answered a web request with an HTML page (Cloudflare). */
  paused_until: Timestamp | null;
  pause_reason: string | null;
  paused_since: Timestamp | null;
  /** Refusals in a row: the pause doubles with each (1 min up to 30 min); 0 when not paused. */
  pause_step: Generated<number>;
}

/** One request in flight for an account and operation, until `until` (a dead holder's expires). */
export interface XWebLeasesTable {
  account_id: number;
  operation: string;
  holder: string;
  until: Timestamp;
}
