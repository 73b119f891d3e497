import type { AlertKind, AlertPeriod, HandleAlertKind, PostAlertKind } from '@perch/shared';
import type { MetricSnapshot, ProfileSnapshot } from '../analytics/types.js';

/**
 * What the alert rules read and what they decide, as plain data. Times are epoch milliseconds
 * (UTC), like the analytics engine's.
 */

/** The part of a stored rule that evaluation needs. */
export interface EvaluatedRule<K extends AlertKind = AlertKind> {
  id: number;
  enabled: boolean;
  kind: K;
}
export type PostRule = EvaluatedRule<PostAlertKind>;
export type HandleRule = EvaluatedRule<HandleAlertKind>;

/** A post's counts at one moment: a metric snapshot, with views where X gives them. */
export type MetricReading = Omit<MetricSnapshot, 'tweetId'> & {
  /** Impressions; null or left out when X did not give them. */
  views?: number | null;
};

/** One post of the rule's handle. */
export interface AlertPost {
  id: string;
  text: string;
  createdAt: number;
  /** Its counts over time, in any order (the stored counts are a reading too). */
  readings: readonly MetricReading[];
}

/** What post rules know beyond the post itself. */
export interface PostRuleContext {
  /** When the evaluation happens; a firing carries this time. */
  now: number;
  /**
   * The handle's median post engagement of the last week and month (docs/analytics.md); null or
   * left out when unknown.
   */
  medianEngagement: Partial<Record<AlertPeriod, number | null>>;
}

/** What handle rules know about the handle. */
export interface HandleState {
  /** Follower counts over time, in any order. */
  profileSnapshots: readonly Pick<ProfileSnapshot, 'takenAt' | 'followers'>[];
  /** When the handle last posted, or null when no post is known. */
  lastPostAt: number | null;
}

/** Numbers a firing records: the value that crossed, the threshold it crossed and the like. */
export type FiringNumbers = Record<string, number>;

/** A rule that fired: which, about which post (post rules), when and with which numbers. */
export interface Firing {
  ruleId: number;
  postId?: string;
  at: number;
  numbers: FiringNumbers;
}

/**
 * What a handle rule remembers between evaluations; stored with the rule so that a restart
 * decides as if it had never happened.
 */
export interface HandleRuleMemory {
  /** The next crossing may fire: nothing fired yet, or the condition was seen false since. */
  armed: boolean;
  /** When the rule last fired, or null when it never did. */
  lastFiredAt: number | null;
}
