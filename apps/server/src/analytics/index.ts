/**
 * The analytics engine (docs/analytics.md): pure functions from a handle's tweets and snapshots, a
 * window and a time zone to the analytics blocks of `@perch/shared`.
 */
export type {
  AnalyticsInput,
  AnalyticsTweet,
  MetricSnapshot,
  ProfileSnapshot,
  WordDays,
} from './types.js';
export {
  prepareWindow,
  type PreparedPost,
  type PreparedProfileSnapshot,
  type PreparedWindow,
  type PostTotals,
} from './window.js';
export { computeAnalytics, computeBlocks, type ComputeOptions } from './compute.js';
export { toApiTweet } from './api-tweet.js';
export { summary } from './summary.js';
export { topPosts, topTweets } from './top-tweets.js';
export { timeseries } from './timeseries.js';
export { contentTypes, enhancedContent, mediaStats } from './content.js';
export { engagement, engagementDistribution, interactionBreakdown } from './engagement.js';
export { postingPatterns } from './posting-patterns.js';
export { hashtags } from './hashtags.js';
export { countWords, STOP_WORDS, WORD_COUNTS_VERSION, wholeUtcDays, words } from './words.js';
export { languages } from './languages.js';
export { viral } from './viral.js';
export { velocity } from './velocity.js';
export { threadPerformance } from './threads.js';
export { growth } from './growth.js';
export { previousPeriod, summaryChange, type PreviousPeriodBlocks } from './compare.js';
