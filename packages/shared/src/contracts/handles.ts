import { z } from 'zod';
import { HANDLE_PATTERN, normalizeHandle } from '../handles.js';
import { notificationFilterSchema } from './filters.js';

/** Backfill status values (docs/spec-notes.md, Backfill statuses). */
export const BACKFILL_STATUSES = [
  'pending',
  'starting',
  'initializing',
  'in_progress',
  'collecting',
  'completed',
  'complete',
  'data_ready',
  'failed',
] as const;
export type BackfillStatus = (typeof BACKFILL_STATUSES)[number];

export const DEFAULT_BACKFILL_DAYS = 15;
export const MIN_BACKFILL_DAYS = 1;
export const MAX_BACKFILL_DAYS = 90;
/** Choices of the main add form. */
export const BACKFILL_DAY_CHOICES = [7, 15] as const;
export const TWEET_PAGE_SIZE = 50;
export const MAX_TWEET_PAGE_SIZE = 100;

/** 'Invalid Twitter handle provided' unless the normalised input is a valid X handle. */
export const handleInputSchema = z
  .string({ error: 'Invalid Twitter handle provided' })
  .transform(normalizeHandle)
  .pipe(z.string().regex(HANDLE_PATTERN, 'Invalid Twitter handle provided'));

/** POST /handles. */
export const addHandleRequestSchema = z.object({
  username: handleInputSchema,
  backfill_days: z.coerce
    .number()
    .int()
    .min(MIN_BACKFILL_DAYS)
    .max(MAX_BACKFILL_DAYS)
    .default(DEFAULT_BACKFILL_DAYS),
  async: z.boolean().default(true),
});
export type AddHandleRequest = z.input<typeof addHandleRequestSchema>;

/** A handle as one user sees it: the server record plus that user's link. */
export const handleSchema = z.object({
  id: z.number().int(),
  handle: z.string(),
  twitter_username: z.string(),
  username: z.string(),
  created_at: z.string(),
  added_at: z.string(),
  backfill_days: z.number().int(),
  backfill_status: z.enum(BACKFILL_STATUSES),
  /** 0-100, share of the backfill window covered. */
  backfill_progress: z.number(),
  initial_backfill_complete: z.boolean(),
  backfill_completed_at: z.string().nullable(),
  estimated_completion: z.string().nullable(),
  total_tweets_collected: z.number().int(),
  tweets_count: z.number().int(),
  analytics_available: z.boolean(),
  followers_count: z.number().int().nullable(),
  following_count: z.number().int().nullable(),
  tweet_count: z.number().int().nullable(),
  telegram_enabled: z.boolean(),
  discord_enabled: z.boolean(),
  /** New posts also go to the user's webhooks (the server always sends it). */
  webhook_enabled: z.boolean().optional(),
  last_error: z.string().nullable(),
  /** This user's notification filter of the handle (the server always sends it). */
  notification_filter: notificationFilterSchema.optional(),
});
export type Handle = z.infer<typeof handleSchema>;

export const handleListResponseSchema = z.object({ handles: z.array(handleSchema) });
export const handleResponseSchema = z.object({ handle: handleSchema });

export const tweetSchema = z.object({
  id: z.string(),
  text: z.string(),
  created_at: z.string(),
  url: z.string(),
  like_count: z.number().int(),
  retweet_count: z.number().int(),
  reply_count: z.number().int(),
  quote_count: z.number().int(),
  impression_count: z.number().int().nullable(),
  lang: z.string().nullable(),
  is_retweet: z.boolean(),
  is_quote: z.boolean(),
  is_reply: z.boolean(),
  has_photo: z.boolean(),
  has_video: z.boolean(),
  media_urls: z.array(z.string()),
  /** Each attached media item: its kind and image (analytics' content types and media). */
  media: z.array(
    z.object({
      type: z.enum(['photo', 'video', 'animated_gif']),
      url: z.string().nullable(),
      preview_url: z.string().nullable(),
    }),
  ),
  hashtags: z.array(z.string()),
  /** Expanded links of the tweet (media links excluded). */
  urls: z.array(z.string()),
  conversation_id: z.string().nullable(),
  /** The X user id this tweet replies to (the handle's own id in a thread). */
  in_reply_to_user_id: z.string().nullable(),
  /** Names of the signed-in user's alert rules that fired on this post (the browser's badge). */
  alert_rule_names: z.array(z.string()).optional(),
});
export type Tweet = z.infer<typeof tweetSchema>;

/** `type` of the tweet browser: originals, replies, quotes, retweets, or any with media. */
export const TWEET_TYPES = ['post', 'reply', 'quote', 'retweet', 'media'] as const;
export type TweetType = (typeof TWEET_TYPES)[number];
/** `sort` of the tweet browser; engagement = likes + retweets + replies + quotes (analytics.md). */
export const TWEET_SORTS = ['newest', 'likes', 'engagement'] as const;
export type TweetSort = (typeof TWEET_SORTS)[number];
export const MAX_TWEET_SEARCH_LENGTH = 100;

export const TWEET_PAGE_MESSAGES = {
  page: 'page must be a whole number of 1 or more',
  limit: `limit must be a whole number from 1 to ${MAX_TWEET_PAGE_SIZE}`,
  q: `Search text must be at most ${MAX_TWEET_SEARCH_LENGTH} characters`,
  qType: 'q must be one search text',
  type: `type must be one of: ${TWEET_TYPES.join(', ')}`,
  sort: `sort must be one of: ${TWEET_SORTS.join(', ')}`,
} as const;

/**
 * GET /handles/{handle}/tweets: a page of the handle's tweets, optionally searched (`q`, words
 * matched in the text, the last one as a prefix), filtered by `type` and sorted (`sort`).
 */
export const tweetPageQuerySchema = z.object({
  page: z.coerce
    .number({ error: TWEET_PAGE_MESSAGES.page })
    .int({ error: TWEET_PAGE_MESSAGES.page })
    .min(1, { error: TWEET_PAGE_MESSAGES.page })
    .default(1),
  limit: z.coerce
    .number({ error: TWEET_PAGE_MESSAGES.limit })
    .int({ error: TWEET_PAGE_MESSAGES.limit })
    .min(1, { error: TWEET_PAGE_MESSAGES.limit })
    .max(MAX_TWEET_PAGE_SIZE, { error: TWEET_PAGE_MESSAGES.limit })
    .default(TWEET_PAGE_SIZE),
  q: z
    .string({ error: TWEET_PAGE_MESSAGES.qType })
    .trim()
    .max(MAX_TWEET_SEARCH_LENGTH, { error: TWEET_PAGE_MESSAGES.q })
    .default(''),
  type: z.enum(TWEET_TYPES, { error: TWEET_PAGE_MESSAGES.type }).optional(),
  sort: z.enum(TWEET_SORTS, { error: TWEET_PAGE_MESSAGES.sort }).default('newest'),
});
export type TweetPageQuery = z.input<typeof tweetPageQuerySchema>;

export const tweetPageResponseSchema = z.object({
  tweets: z.array(tweetSchema),
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  has_more: z.boolean(),
});

/** GET /handles/{handle}/backfill-progress. */
export const backfillProgressSchema = z.object({
  progress: z.number(),
  status: z.enum(BACKFILL_STATUSES),
  totalTweets: z.number().int(),
  message: z.string(),
  estimatedCompletion: z.string().nullable(),
  hasData: z.boolean(),
  lastUpdated: z.string(),
  isComplete: z.boolean(),
  error: z.string().optional(),
});
export type BackfillProgress = z.infer<typeof backfillProgressSchema>;
