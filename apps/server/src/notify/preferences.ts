import {
  DEFAULT_NOTIFICATION_PREFERENCES,
  notificationPreferencesSchema,
  type NotificationPreferences,
} from '@perch/shared';
import { parseStringArray } from '../lib/json-strings.js';

/**
 * The stored preferences (a JSON object): every known key that holds a boolean, the defaults
 * for the rest, so a preference added later starts at its default for everyone.
 */
export function parsePreferences(text: string | null | undefined): NotificationPreferences {
  let stored: unknown = {};
  try {
    stored = JSON.parse(text ?? '{}');
  } catch {
    stored = {};
  }
  const merged: Record<string, unknown> = { ...DEFAULT_NOTIFICATION_PREFERENCES };
  if (stored && typeof stored === 'object' && !Array.isArray(stored)) {
    for (const [key, value] of Object.entries(stored)) {
      if (key in merged && typeof value === 'boolean') merged[key] = value;
    }
  }
  return notificationPreferencesSchema.parse(merged);
}

interface TweetKinds {
  referenced_types: string;
  in_reply_to_user_id: string | null;
}

/**
 * Whether a tweet is wanted under these preferences. A reply of the handle to itself (a thread)
 * is not "a reply" here: threads are the handle's own posts.
 */
export function allowsTweet(
  preferences: NotificationPreferences,
  tweet: TweetKinds,
  handleXUserId: string | null,
): boolean {
  const types = parseStringArray(tweet.referenced_types);
  if (types.includes('retweeted') && !preferences.include_retweets) return false;
  if (types.includes('quoted') && !preferences.include_quotes) return false;
  const selfReply = handleXUserId !== null && tweet.in_reply_to_user_id === handleXUserId;
  if (types.includes('replied_to') && !selfReply && !preferences.include_replies) return false;
  return true;
}
