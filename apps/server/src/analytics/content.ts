import type { ContentTypes, EnhancedContent, MediaStats, ThreadPerformance } from '@perch/shared';
import { average } from './stats.js';
import { threadPerformance } from './threads.js';
import type { PreparedWindow } from './window.js';

/** The content-breakdown block: posts by content type, plus retweets, replies and quotes. */
export function contentTypes(prepared: PreparedWindow): ContentTypes {
  const counts: ContentTypes = {
    text: 0,
    image: 0,
    video: 0,
    link: 0,
    retweets: prepared.retweetCount,
    replies: 0,
    quotes: 0,
  };
  for (const { contentType, tweet } of prepared.posts) {
    counts[contentType] += 1;
    if (tweet.isReply) counts.replies += 1;
    if (tweet.isQuote) counts.quotes += 1;
  }
  return counts;
}

/** The media-stats block: media items attached to posts and how posts with media fare. */
export function mediaStats(prepared: PreparedWindow): MediaStats {
  let photos = 0;
  let videos = 0;
  let gifs = 0;
  let postsWithMedia = 0;
  let engagementWithMedia = 0;
  for (const { tweet, engagement } of prepared.posts) {
    if (tweet.media.length === 0) continue;
    postsWithMedia += 1;
    engagementWithMedia += engagement;
    for (const item of tweet.media) {
      if (item.type === 'photo') photos += 1;
      else if (item.type === 'video') videos += 1;
      else gifs += 1;
    }
  }
  const postsWithoutMedia = prepared.posts.length - postsWithMedia;
  return {
    photos,
    videos,
    gifs,
    posts_with_media: postsWithMedia,
    avg_engagement_with_media: average(engagementWithMedia, postsWithMedia),
    avg_engagement_without_media: average(
      prepared.totals.engagement - engagementWithMedia,
      postsWithoutMedia,
    ),
  };
}

/** Assembles the enhanced-content block from blocks already computed. */
export function combineEnhancedContent(
  media: MediaStats,
  types: ContentTypes,
  threads: ThreadPerformance,
): EnhancedContent {
  return {
    mediaBreakdown: {
      photos: media.photos,
      videos: media.videos,
      gifs: media.gifs,
      posts_with_media: media.posts_with_media,
    },
    contentTypes: types,
    threadAnalysis: threads,
  };
}

/** The enhanced-content block: media counts, content types and thread performance together. */
export function enhancedContent(prepared: PreparedWindow): EnhancedContent {
  return combineEnhancedContent(
    mediaStats(prepared),
    contentTypes(prepared),
    threadPerformance(prepared),
  );
}
