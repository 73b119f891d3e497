import type { ThreadPerformance } from '@perch/shared';
import { average, compareIds } from './stats.js';
import type { PreparedPost, PreparedWindow } from './window.js';

interface Thread {
  conversationId: string;
  length: number;
  engagement: number;
}

/**
 * The window's threads: conversations whose root post is in the window and which hold at least
 * one more of the window's posts replying to the handle itself. Replies to other accounts in the
 * same conversation are not part of the thread. Returns the threads and the posts in them.
 */
function findThreads(prepared: PreparedWindow): {
  threads: Thread[];
  threadPosts: Set<PreparedPost>;
} {
  const threadPosts = new Set<PreparedPost>();
  const { xUserId } = prepared;
  if (xUserId === null) return { threads: [], threadPosts };

  // Self-replies first: they are few, so the map stays small and every other post costs one
  // lookup (a map of every root was most of the block's time on 100,000 posts).
  const selfReplies = new Map<string, { root: PreparedPost | null; replies: PreparedPost[] }>();
  for (const post of prepared.posts) {
    const { conversationId, id, inReplyToUserId } = post.tweet;
    if (inReplyToUserId !== xUserId || conversationId === null || conversationId === id) continue;
    const conversation = selfReplies.get(conversationId);
    if (conversation) conversation.replies.push(post);
    else selfReplies.set(conversationId, { root: null, replies: [post] });
  }
  if (selfReplies.size === 0) return { threads: [], threadPosts };
  for (const post of prepared.posts) {
    const { conversationId, id } = post.tweet;
    if (conversationId !== id) continue;
    // A root listed twice counts as its last copy.
    const conversation = selfReplies.get(id);
    if (conversation) conversation.root = post;
  }

  const threads: Thread[] = [];
  for (const [conversationId, { root, replies }] of selfReplies) {
    if (root === null) continue;
    const members = [root, ...replies];
    let engagement = 0;
    for (const post of members) {
      engagement += post.engagement;
      threadPosts.add(post);
    }
    threads.push({ conversationId, length: members.length, engagement });
  }
  return { threads, threadPosts };
}

/** Most engagement, then longer, then the larger (newer) conversation id. */
function isBetterThread(a: Thread, b: Thread): boolean {
  if (a.engagement !== b.engagement) return a.engagement > b.engagement;
  if (a.length !== b.length) return a.length > b.length;
  return compareIds(a.conversationId, b.conversationId) > 0;
}

/** The thread-performance block: how the handle's threads fare against standalone posts. */
export function threadPerformance(prepared: PreparedWindow): ThreadPerformance {
  const { threads, threadPosts } = findThreads(prepared);
  let best: Thread | null = null;
  let threadEngagement = 0;
  for (const thread of threads) {
    threadEngagement += thread.engagement;
    if (best === null || isBetterThread(thread, best)) best = thread;
  }
  const standalonePosts = prepared.posts.length - threadPosts.size;
  let standaloneEngagement = prepared.totals.engagement;
  for (const post of threadPosts) standaloneEngagement -= post.engagement;
  return {
    thread_count: threads.length,
    avg_thread_length: average(threadPosts.size, threads.length),
    avg_thread_engagement: average(threadEngagement, threads.length),
    avg_standalone_engagement: average(standaloneEngagement, standalonePosts),
    best_thread: best && {
      conversation_id: best.conversationId,
      length: best.length,
      engagement: best.engagement,
    },
  };
}
