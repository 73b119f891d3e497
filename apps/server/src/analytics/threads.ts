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

  const roots = new Map<string, PreparedPost>();
  for (const post of prepared.posts) {
    if (post.tweet.conversationId === post.tweet.id) roots.set(post.tweet.id, post);
  }
  const selfReplies = new Map<string, PreparedPost[]>();
  for (const post of prepared.posts) {
    const { conversationId, id, inReplyToUserId } = post.tweet;
    if (conversationId === null || conversationId === id || inReplyToUserId !== xUserId) continue;
    if (!roots.has(conversationId)) continue;
    const replies = selfReplies.get(conversationId);
    if (replies) replies.push(post);
    else selfReplies.set(conversationId, [post]);
  }

  const threads: Thread[] = [];
  for (const [conversationId, replies] of selfReplies) {
    const members = [roots.get(conversationId)!, ...replies];
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
