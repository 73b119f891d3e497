import { describe, expect, it } from 'vitest';
import { makeTweet, prepare } from './test-factories.js';
import { STOP_WORDS, words } from './words.js';

describe('words', () => {
  const tweets = [
    makeTweet({
      id: '1',
      text:
        "The quick brown fox's jump https://t.co/abc?q=fox @fox_news #FoxFacts QUICK quick! " +
        "it's café naïve 42go ab über #café 𝐚𝐛 𝐚𝐛𝐜",
    }),
    makeTweet({ id: '2', text: 'Brown, brown and BROWN: with the fox.' }),
    makeTweet({ id: '3', text: 'quick quick quick quick quick', isRetweet: true }),
  ];

  it('counts lowercased words of posts without URLs, mentions, hashtags and stop words', () => {
    expect(words(prepare({ tweets }))).toEqual({
      words: [
        { word: 'brown', count: 4 },
        { word: 'quick', count: 3 },
        { word: 'fox', count: 2 },
        { word: 'café', count: 1 },
        { word: 'jump', count: 1 },
        { word: 'naïve', count: 1 },
        { word: 'über', count: 1 },
        // Three letters outside the 16-bit range are three letters; two are too few.
        { word: '𝐚𝐛𝐜', count: 1 },
      ],
    });
  });

  it('keeps at most `limit` words', () => {
    expect(words(prepare({ tweets }), 2).words).toEqual([
      { word: 'brown', count: 4 },
      { word: 'quick', count: 3 },
    ]);
  });

  it('is empty without posts', () => {
    expect(words(prepare()).words).toEqual([]);
  });

  it('lists common English words of 3 letters or more as stop words', () => {
    for (const word of ['the', 'and', 'for', 'with', 'that', 'this', 'you', 'are', 'was']) {
      expect(STOP_WORDS.has(word)).toBe(true);
    }
    expect(
      [...STOP_WORDS].filter((word) => word.length < 3 || word !== word.toLowerCase()),
    ).toEqual([]);
    expect(STOP_WORDS.size).toBeGreaterThanOrEqual(100);
  });
});
