/**
 * What every number on the analytics dashboard means, in the words of docs/analytics.md (the
 * definitions the server computes them by). Shown in the info tooltips next to each metric.
 */

const POSTS =
  'Posts are the tweets of the handle in the window that are not retweets (originals, replies, quotes).';
const ENGAGEMENT =
  'Engagement of a post = likes + retweets + replies + quotes (latest known counts).';

export const METRIC_DEFINITIONS = {
  // Summary
  tweets: `Posts in the window. ${POSTS}`,
  likes: 'Total likes: the sum of like_count over the posts of the window.',
  retweets: 'Total retweets: the sum of retweet_count over the posts of the window.',
  replies: 'Total replies: the sum of reply_count over the posts of the window.',
  quotes: 'Total quotes: the sum of quote_count over the posts of the window.',
  followers: 'Followers and following: the latest profile snapshot of the handle.',
  avgEngagement: `Average engagement: total engagement / number of posts. ${ENGAGEMENT}`,
  engagementRate:
    'Engagement rate: average engagement per post / followers x 100. Empty without a follower count.',
  growthRate:
    'Growth rate: (last - first follower snapshot in the window) / first x 100. Empty with fewer than 2 snapshots.',
  peak: 'Peak day: the weekday with most posts (ties: earliest weekday). Peak hour: the hour (0-23) with most posts (ties: smallest), in your time zone.',

  // Time series and patterns
  timeSeries: `One entry per calendar day of the window (in your time zone), empty days included. ${ENGAGEMENT} A day's engagement rate = that day's engagement / that day's posts / followers x 100 (0 on days without posts).`,
  heatmap:
    'Posting heatmap: posts counted by weekday (Monday to Sunday) and hour of the day, in your time zone.',
  peakTimes:
    'Peak times: the 3 weekday-and-hour cells of the heatmap with most posts (ties by weekday, then hour). Peak hours: the 3 hours with most posts. Weekdays ordered by post count.',

  // Content
  hashtags:
    'Hashtags, case-insensitive: a post counts once per distinct tag; shown with its most frequent spelling, sorted by count.',
  words:
    'Top words: how often each word appears in the posts of the window, lowercased, without links, @mentions and #hashtags; words of at least 3 letters, common English words (the, and, with...) left out.',
  languages:
    'Languages: posts per language code reported by X (missing = und), with its share of all posts.',
  contentTypes:
    'Content types: each post in exactly one type, by precedence: video (a video or GIF attached) > image (a photo attached) > link (a URL that is not a post on X) > text. Retweets counts the handle’s retweets in the window; replies and quotes are posts of those kinds.',
  engagementByType:
    'Engagement by type: the average engagement of the posts of each content type (text, image, video, link).',
  engagementDistribution:
    'Engagement distribution: number of posts per engagement bucket (0, 1-9, 10-99, 100-999, 1k-9.9k, 10k+).',
  interactionBreakdown:
    'Interaction breakdown: likes, retweets, replies and quotes as percentages of total engagement (they sum to 100, or are all 0).',

  // Virality
  viral:
    'A post is viral when its engagement is at least max(10, 3 x the median engagement of the window’s posts).',
  viralScore: 'Viral score: viral posts / all posts x 100.',
  viralCount: 'Viral posts: posts whose engagement reaches the viral threshold.',
  viralThreshold: 'Viral threshold: max(10, 3 x the median engagement of the window’s posts).',
  amplificationFactor: 'Amplification factor: (total retweets + total quotes) / number of posts.',
  viralCoefficient: 'Viral coefficient: (total retweets + total quotes) / max(1, total likes).',
  networkAmplification:
    'Network amplification: (total retweets + total quotes) / followers x 100. Empty without a follower count.',

  // Velocity
  velocity:
    'Velocity, from metric snapshots: a post’s engagement at age a hours is interpolated between its snapshots (0 at creation); unknown when its newest snapshot is younger than a. Never estimated from totals.',
  velocity1h:
    'Average engagement per hour in the first hour: mean over posts with a known value of (engagement at 1 h) / 1.',
  velocity3h:
    'Average engagement per hour in the first 3 hours: mean over posts with a known value of (engagement at 3 h) / 3.',
  velocity6h:
    'Average engagement per hour in the first 6 hours: mean over posts with a known value of (engagement at 6 h) / 6.',
  velocityPeak:
    'Peak velocity: the largest engagement per hour between two consecutive snapshots of any post.',

  // Threads
  threads:
    'A thread is a conversation whose root post is the handle’s and which holds at least one more post of the handle replying to itself.',
  threadCount: 'Threads: number of threads started in the window.',
  avgThreadLength: 'Average thread length: posts per thread.',
  avgThreadEngagement:
    'Average thread engagement: engagement of all posts of the threads / threads.',
  avgStandaloneEngagement: 'Average standalone engagement: mean engagement of posts in no thread.',
  bestThread: 'Best thread: the thread with the highest total engagement.',

  // Media
  media:
    'Media: photos, videos and GIFs attached to the posts of the window, the posts that carry any, and the average engagement of posts with and without media.',
  postsWithMedia: 'Posts with media: posts with at least one photo, video or GIF.',
  engagementWithMedia: 'Average engagement of the posts that carry media.',
  engagementWithoutMedia: 'Average engagement of the posts without media.',

  // Growth
  growth:
    'Follower growth: one point per day with a snapshot (the day’s last follower count). Net change = last - first snapshot in the window; growth rate = (last - first) / first x 100.',

  // Top tweets
  topTweets: `Top posts of the window by likes (ties: newest first), up to 10. ${ENGAGEMENT}`,
} as const;

export type MetricKey = keyof typeof METRIC_DEFINITIONS;
