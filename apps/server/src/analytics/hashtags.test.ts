import { describe, expect, it } from 'vitest';
import { hashtags } from './hashtags.js';
import { makeTweet, prepare } from './test-factories.js';

const tweets = [
  // #AI and #ai in one post: one post for the tag, two occurrences of spellings.
  makeTweet({ id: '1', hashtags: ['AI', 'ai', '#Rust'] }),
  makeTweet({ id: '2', hashtags: ['ai', 'Zig', 'beta'] }),
  makeTweet({ id: '3', hashtags: ['Ai', 'rust', 'Go', 'Zig', 'beta'] }),
  // Retweets are not posts: their tags count for nothing, not even spellings.
  makeTweet({ id: '4', hashtags: ['AI', 'AI', 'AI', 'RUST', 'RUST'], isRetweet: true }),
];

describe('hashtags', () => {
  it('counts posts per tag case-insensitively, shown in the most used spelling', () => {
    expect(hashtags(prepare({ tweets }))).toEqual({
      hashtags: [
        // ai: 2 occurrences against AI 1 and Ai 1.
        { tag: 'ai', count: 3 },
        // Rust 1 and rust 1: 'Rust' < 'rust'. Equal counts sort by the shown tag with plain
        // `<`, so upper case comes before lower case.
        { tag: 'Rust', count: 2 },
        { tag: 'Zig', count: 2 },
        { tag: 'beta', count: 2 },
        { tag: 'Go', count: 1 },
      ],
    });
  });

  it('keeps at most `limit` tags', () => {
    expect(hashtags(prepare({ tweets }), 2).hashtags).toEqual([
      { tag: 'ai', count: 3 },
      { tag: 'Rust', count: 2 },
    ]);
  });

  it('counts every occurrence for the spelling, even repeats in one post', () => {
    const result = hashtags(
      prepare({
        tweets: [
          makeTweet({ id: '1', hashtags: ['TypeScript', 'TYPESCRIPT', 'TYPESCRIPT'] }),
          makeTweet({ id: '2', hashtags: ['TypeScript'] }),
          makeTweet({ id: '3', hashtags: ['typescript'] }),
        ],
      }),
    );
    // TYPESCRIPT 2, TypeScript 2, typescript 1: the tie goes to 'TYPESCRIPT' ('Y' < 'y').
    expect(result.hashtags).toEqual([{ tag: 'TYPESCRIPT', count: 3 }]);
  });

  it('is empty without posts or tags', () => {
    expect(hashtags(prepare()).hashtags).toEqual([]);
    expect(
      hashtags(prepare({ tweets: [makeTweet({ id: '1', hashtags: ['#'] })] })).hashtags,
    ).toEqual([]);
  });
});
