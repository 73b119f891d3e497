/** The tables of alerts and webhooks (migrations 0021 and 0022). */
import type { Generated } from 'kysely';
import type { Bool, Timestamp } from './columns.js';

/** A user's alert rule of one handle. */
export interface AlertRulesTable {
  id: Generated<number>;
  user_id: number;
  handle_id: number;
  name: string;
  enabled: Bool;
  /** JSON of the rule's kind (contracts/alerts.ts AlertKind). */
  kind: string;
  /** A handle rule's crossing memory (alerts/crossing.ts), or null before its first evaluation. */
  memory: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A rule that fired, stored once per rule and `firing_key`. */
export interface AlertFiringsTable {
  id: Generated<number>;
  rule_id: number;
  user_id: number;
  handle_id: number;
  /** The post's id for post rules (alerts/post-rules.ts firingKey), the crossing for handle rules. */
  firing_key: string;
  tweet_id: string | null;
  fired_at: Timestamp;
  /** JSON object of the numbers it fired with. */
  numbers: string;
}

/**
 * Posts of one handle whose new numbers its alert rules have not looked at yet, marked by one
 * write (migration 0023).
 */
export interface AlertMarksTable {
  id: Generated<number>;
  handle_id: number;
  /** The marked posts (`tweets.id`), a JSON array in storing order. */
  tweet_rows: string;
  marked_at: Timestamp;
  /** The evaluation that took the mark, and until when; null while nobody has. */
  claim: string | null;
  claimed_until: Timestamp | null;
}

/** A user's webhook endpoint. */
export interface WebhookEndpointsTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  url: string;
  /** 'generic' | 'slack' | 'discord' */
  preset: string;
  /** The signing secret sealed with the stored-credentials key. */
  secret_sealed: string;
  stopped_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}
