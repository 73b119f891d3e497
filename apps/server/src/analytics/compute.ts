import {
  HASHTAGS_LIMIT,
  TOP_TWEETS_LIMIT,
  WORDS_LIMIT,
  type AnalyticsBlocks,
  type TopTweetSort,
} from '@perch/shared';
import { combineEnhancedContent, contentTypes, mediaStats } from './content.js';
import { engagement, engagementDistribution, interactionBreakdown } from './engagement.js';
import { growth } from './growth.js';
import { hashtags } from './hashtags.js';
import { languages } from './languages.js';
import { postingPatterns } from './posting-patterns.js';
import { summary } from './summary.js';
import { threadPerformance } from './threads.js';
import { timeseries } from './timeseries.js';
import { topTweets } from './top-tweets.js';
import type { AnalyticsInput } from './types.js';
import { velocity } from './velocity.js';
import { viral } from './viral.js';
import { prepareWindow, type PreparedWindow } from './window.js';
import { words } from './words.js';

/** The options of the blocks that take any; each defaults to the API's default. */
export interface ComputeOptions {
  topTweetsSort?: TopTweetSort;
  topTweetsLimit?: number;
  hashtagsLimit?: number;
  wordsLimit?: number;
}

/** Every block of one prepared window; blocks that contain others reuse them. */
export function computeBlocks(
  prepared: PreparedWindow,
  options: ComputeOptions = {},
): AnalyticsBlocks {
  const types = contentTypes(prepared);
  const media = mediaStats(prepared);
  const threads = threadPerformance(prepared);
  return {
    summary: summary(prepared),
    topTweets: topTweets(
      prepared,
      options.topTweetsSort ?? 'like_count',
      options.topTweetsLimit ?? TOP_TWEETS_LIMIT,
    ),
    timeSeries: timeseries(prepared),
    contentTypes: types,
    engagement: engagement(prepared),
    postingPatterns: postingPatterns(prepared),
    hashtags: hashtags(prepared, options.hashtagsLimit ?? HASHTAGS_LIMIT),
    words: words(prepared, options.wordsLimit ?? WORDS_LIMIT),
    languages: languages(prepared),
    viral: viral(prepared),
    velocity: velocity(prepared),
    threadPerformance: threads,
    engagementDistribution: engagementDistribution(prepared),
    interactionBreakdown: interactionBreakdown(prepared),
    mediaStats: media,
    enhancedContent: combineEnhancedContent(media, types, threads),
    growth: growth(prepared),
  };
}

/** Every block for a handle's data over its window: `computeBlocks(prepareWindow(input))`. */
export function computeAnalytics(
  input: AnalyticsInput,
  options: ComputeOptions = {},
): AnalyticsBlocks {
  return computeBlocks(prepareWindow(input), options);
}
