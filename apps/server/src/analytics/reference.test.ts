/**
 * The blocks whose fast algorithms replaced plain ones, against those plain ones written out
 * straight from docs/analytics.md, on random data: equal results to the last bit.
 */
import {
  HASHTAGS_LIMIT,
  WORDS_LIMIT,
  type Hashtags,
  type ThreadPerformance,
  type Velocity,
  type Words,
} from '@perch/shared';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashtags } from './hashtags.js';
import { median } from './stats.js';
import { makeInput, makeMetricSnapshot, makeTweet, X_USER_ID } from './test-factories.js';
import { threadPerformance } from './threads.js';
import type { AnalyticsInput, AnalyticsTweet, MetricSnapshot } from './types.js';
import { velocity } from './velocity.js';
import { engagementOf, prepareWindow, type PreparedPost, type PreparedWindow } from './window.js';
import { STOP_WORDS, words } from './words.js';

const HOUR = 3_600_000;
const START = Date.parse('2026-03-01T00:00:00.000Z');
const END = Date.parse('2026-03-31T00:00:00.000Z');

// ---------------------------------------------------------------------------------------------
// The references.

function referenceVelocity(prepared: PreparedWindow): Velocity {
  const byId = new Map<string, { createdAt: number; snapshots: MetricSnapshot[] }>();
  for (const { tweet } of prepared.posts) {
    byId.set(tweet.id, { createdAt: tweet.createdAt, snapshots: [] });
  }
  for (const snapshot of prepared.metricSnapshots) {
    const entry = byId.get(snapshot.tweetId);
    if (entry && snapshot.takenAt >= entry.createdAt) entry.snapshots.push(snapshot);
  }
  const ages = [1, 3, 6];
  const sums = [0, 0, 0];
  const measured = [0, 0, 0];
  let peak: number | null = null;
  for (const { createdAt, snapshots } of byId.values()) {
    if (snapshots.length === 0) continue;
    const own = [...snapshots].sort((a, b) => a.takenAt - b.takenAt);
    const times = own.map((snapshot) => snapshot.takenAt);
    const values = own.map(engagementOf);
    ages.forEach((hours, age) => {
      const target = createdAt + hours * HOUR;
      const index = times.findIndex((time) => time >= target);
      if (index === -1) return;
      const previousTime = index === 0 ? createdAt : times[index - 1]!;
      const previousValue = index === 0 ? 0 : values[index - 1]!;
      const value =
        times[index] === target
          ? values[index]!
          : previousValue +
            ((values[index]! - previousValue) * (target - previousTime)) /
              (times[index]! - previousTime);
      sums[age]! += value / hours;
      measured[age]! += 1;
    });
    for (let i = 1; i < times.length; i++) {
      const elapsed = times[i]! - times[i - 1]!;
      if (elapsed === 0) continue;
      const rate = (values[i]! - values[i - 1]!) / (elapsed / HOUR);
      if (peak === null || rate > peak) peak = rate;
    }
  }
  const averageAt = (age: number) => (measured[age] ? sums[age]! / measured[age]! : null);
  return {
    avg_1h: averageAt(0),
    avg_3h: averageAt(1),
    avg_6h: averageAt(2),
    posts_measured_1h: measured[0]!,
    posts_measured_3h: measured[1]!,
    posts_measured_6h: measured[2]!,
    peak,
  };
}

function referenceThreads(prepared: PreparedWindow): ThreadPerformance {
  const { posts, xUserId } = prepared;
  const roots = new Map<string, PreparedPost>();
  for (const post of posts)
    if (post.tweet.conversationId === post.tweet.id) roots.set(post.tweet.id, post);
  const replies = new Map<string, PreparedPost[]>();
  for (const post of posts) {
    const { conversationId, id, inReplyToUserId } = post.tweet;
    if (xUserId === null || conversationId === null || conversationId === id) continue;
    if (inReplyToUserId !== xUserId || !roots.has(conversationId)) continue;
    replies.set(conversationId, [...(replies.get(conversationId) ?? []), post]);
  }
  const threads = [...replies].map(([conversationId, own]) => {
    const members = [roots.get(conversationId)!, ...own];
    return {
      conversationId,
      members,
      engagement: members.reduce((sum, post) => sum + post.engagement, 0),
    };
  });
  const inThreads = new Set(threads.flatMap((thread) => thread.members));
  const standalone = posts.filter((post) => !inThreads.has(post));
  const best = [...threads].sort(
    (a, b) =>
      b.engagement - a.engagement ||
      b.members.length - a.members.length ||
      Number(BigInt(b.conversationId) - BigInt(a.conversationId)),
  )[0];
  const mean = (sum: number, count: number) => (count === 0 ? 0 : sum / count);
  return {
    thread_count: threads.length,
    avg_thread_length: mean(inThreads.size, threads.length),
    avg_thread_engagement: mean(
      threads.reduce((sum, thread) => sum + thread.engagement, 0),
      threads.length,
    ),
    avg_standalone_engagement: mean(
      standalone.reduce((sum, post) => sum + post.engagement, 0),
      standalone.length,
    ),
    best_thread: best
      ? {
          conversation_id: best.conversationId,
          length: best.members.length,
          engagement: best.engagement,
        }
      : null,
  };
}

function referenceHashtags(prepared: PreparedWindow): Hashtags {
  const tags = new Map<string, { posts: number; spellings: Map<string, number> }>();
  for (const { tweet } of prepared.posts) {
    const seen = new Set<string>();
    for (const raw of tweet.hashtags) {
      const spelling = raw.replace(/^#/, '');
      if (spelling === '') continue;
      const key = spelling.toLowerCase();
      const tag = tags.get(key) ?? { posts: 0, spellings: new Map<string, number>() };
      tags.set(key, tag);
      if (!seen.has(key)) tag.posts += 1;
      seen.add(key);
      tag.spellings.set(spelling, (tag.spellings.get(spelling) ?? 0) + 1);
    }
  }
  const ranked = [...tags.values()].map(({ posts, spellings }) => ({
    tag: [...spellings].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0],
    count: posts,
  }));
  ranked.sort((a, b) => b.count - a.count || (a.tag < b.tag ? -1 : 1));
  return { hashtags: ranked.slice(0, HASHTAGS_LIMIT) };
}

function referenceWords(prepared: PreparedWindow): Words {
  const counts = new Map<string, number>();
  for (const { tweet } of prepared.posts) {
    const runs =
      (tweet.text ?? '').replace(/https?:\/\/\S+|@\w+|#[\p{L}\p{N}_]+/gu, ' ').match(/\p{L}+/gu) ??
      [];
    for (const run of runs) {
      for (const word of run.toLowerCase().match(/\p{L}+/gu) ?? []) {
        if ([...word].length < 3 || STOP_WORDS.has(word)) continue;
        counts.set(word, (counts.get(word) ?? 0) + 1);
      }
    }
  }
  const ranked = [...counts].map(([word, count]) => ({ word, count }));
  ranked.sort((a, b) => b.count - a.count || (a.word < b.word ? -1 : 1));
  return { words: ranked.slice(0, WORDS_LIMIT) };
}

function referenceMedian(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = Float64Array.from(values).sort();
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

// ---------------------------------------------------------------------------------------------
// Random data: few ids, so that ids repeat, conversations link and snapshots find their posts.

const ids = fc.constantFrom('1', '2', '3', '10', '11', '12', '100', '0100', '101');
const moment = fc.integer({ min: START - 2 * HOUR, max: START + 20 * HOUR });
const count = fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 100_000 }));
const textPieces = fc.constantFrom(
  'word ',
  'Word',
  'THE ',
  'ab ',
  'café ',
  'İstanbul ',
  '東京タワー',
  '𝐚𝐛𝐜 ',
  '🚀',
  '\ud835',
  'https://t.co/x ',
  'http',
  '@user ',
  '#tag ',
  '#東京 ',
  '42go ',
  "it's ",
  '\u00a0',
  '\n',
);
const tagPieces = fc.constantFrom('AI', 'ai', 'Ai', '#AI', '#', '', 'Rust', 'rust', '#rust', 'Zig');

const tweetArbitrary: fc.Arbitrary<AnalyticsTweet> = fc
  .record({
    id: ids,
    createdAt: moment,
    likes: count,
    retweets: count,
    replies: count,
    quotes: count,
    conversationId: fc.option(ids),
    inReplyToUserId: fc.constantFrom(X_USER_ID, '2002', null),
    isRetweet: fc.constantFrom(false, false, false, true),
    hashtags: fc.array(tagPieces, { maxLength: 4 }),
    text: fc.array(textPieces, { maxLength: 12 }).map((pieces) => pieces.join('')),
  })
  .map((fields) => makeTweet(fields));

const snapshotArbitrary: fc.Arbitrary<MetricSnapshot> = fc
  .record({
    id: ids,
    takenAt: moment,
    likes: count,
    retweets: count,
    replies: count,
    quotes: count,
  })
  .map(({ id, takenAt, ...counts }) => makeMetricSnapshot(id, takenAt, counts));

const inputArbitrary: fc.Arbitrary<AnalyticsInput> = fc
  .record({
    tweets: fc.array(tweetArbitrary, { maxLength: 30 }),
    metricSnapshots: fc.array(snapshotArbitrary, { maxLength: 40 }),
    xUserId: fc.constantFrom(X_USER_ID, null),
  })
  .map((data) => makeInput({ ...data, window: { start: START, end: END } }));

describe('fast paths against plain references', () => {
  it('velocity', () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const prepared = prepareWindow(input);
        expect(velocity(prepared)).toEqual(referenceVelocity(prepared));
      }),
      { numRuns: 500 },
    );
  });

  it('thread performance', () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const prepared = prepareWindow(input);
        expect(threadPerformance(prepared)).toEqual(referenceThreads(prepared));
      }),
      { numRuns: 500 },
    );
  });

  it('hashtags', () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const prepared = prepareWindow(input);
        expect(hashtags(prepared)).toEqual(referenceHashtags(prepared));
      }),
      { numRuns: 500 },
    );
  });

  it('words', () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const prepared = prepareWindow(input);
        expect(words(prepared)).toEqual(referenceWords(prepared));
      }),
      { numRuns: 500 },
    );
  });

  it('median', () => {
    const values = fc.array(
      fc.oneof(fc.integer({ min: -3, max: 3 }), fc.double({ noDefaultInfinity: true })),
      { maxLength: 60 },
    );
    fc.assert(
      fc.property(values, (list) => {
        expect(Object.is(median(list), referenceMedian(list))).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });
});
