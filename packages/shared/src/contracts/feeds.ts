import { z } from 'zod';

/**
 * RSS 2.0 and JSON Feed 1.1 of each followed handle at a secret per-user address
 * (/api/v1/feeds/<token>/<handle>.rss and .json), for feed readers, which have no session.
 * GET /settings/feeds lists them (making the token on first use); POST
 * /settings/feeds/regenerate replaces the token, and the old addresses stop working at once.
 */

/** Items per feed: the handle's latest tweets. */
export const FEED_ITEM_LIMIT = 50;
/** How long a reader may reuse a feed before asking again (it revalidates with ETag after). */
export const FEED_MAX_AGE_SECONDS = 300;

export const FEED_MESSAGES = {
  /** Every miss (unknown token, a handle not followed, a bad file name) reads the same. */
  notFound: 'Feed not found.',
  regenerated: 'New feed addresses made: the old ones stopped working.',
  regenerateFailed: 'Failed to make new feed addresses.',
  unreadable:
    'Your feed addresses were sealed with another SECRET_KEY. Regenerate them to get new ones.',
} as const;

/** One followed handle's two feeds. */
export const handleFeedSchema = z.object({
  handle: z.string(),
  rssUrl: z.string(),
  jsonUrl: z.string(),
});
export type HandleFeed = z.infer<typeof handleFeedSchema>;

/** GET /settings/feeds and POST /settings/feeds/regenerate. */
export const feedsSchema = z.object({
  /** When the current secret address was made. */
  createdAt: z.string(),
  /** The followed handles, in the order of the handle list. */
  feeds: z.array(handleFeedSchema),
});
export type Feeds = z.infer<typeof feedsSchema>;
