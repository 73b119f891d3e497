import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeTweet, prepare } from './test-factories.js';
import { countWords, STOP_WORDS, wholeUtcDays, words } from './words.js';

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

describe('words with counts kept per UTC day', () => {
  const DAY = 86_400_000;
  const start = Date.parse('2026-03-01T07:30:00.000Z');
  const end = start + 7 * DAY;
  const phrases = [
    'Shipping Rust today https://x.com/a #Rust',
    'rust and zig, café café',
    'İstanbul nights @someone',
    'Zig zag ZIG',
    'über Über ÜBER 𝐚𝐛𝐜',
    '',
  ];
  const posts = fc.array(
    fc.record({
      at: fc.integer({ min: start - DAY, max: end + DAY }),
      text: fc.array(fc.constantFrom(...phrases), { maxLength: 3 }).map((parts) => parts.join(' ')),
      isRetweet: fc.constantFrom(false, false, true),
    }),
    { maxLength: 40 },
  );

  it('gives exactly the counts of every text when the whole days come from kept counts', () => {
    fc.assert(
      fc.property(posts, (list) => {
        const window = { start, end };
        const tweets = list.map((post, index) =>
          makeTweet({
            id: String(index + 1),
            text: post.text,
            createdAt: post.at,
            isRetweet: post.isRetweet,
          }),
        );
        const span = wholeUtcDays(window)!;
        // What the days' rows hold: each whole day's posts counted on their own, then added.
        const counts = new Map<string, number>();
        for (let day = span.start; day < span.end; day += DAY) {
          const texts = tweets
            .filter((t) => !t.isRetweet && t.createdAt >= day && t.createdAt < day + DAY)
            .map((t) => t.text ?? '');
          for (const [word, count] of countWords(texts)) {
            counts.set(word, (counts.get(word) ?? 0) + count);
          }
        }
        const unloaded = tweets.map((t) =>
          t.createdAt >= span.start && t.createdAt < span.end ? { ...t, text: null } : t,
        );
        const kept = words(
          prepare({ tweets: unloaded, window, wordDays: { ...span, counts } }),
          1000,
        );
        expect(kept).toEqual(words(prepare({ tweets, window }), 1000));
      }),
    );
  });

  it('finds the whole UTC days of a window, its end included', () => {
    expect(wholeUtcDays({ start, end })).toEqual({
      start: Date.parse('2026-03-02T00:00:00.000Z'),
      end: Date.parse('2026-03-08T00:00:00.000Z'),
    });
    const midnight = Date.parse('2026-03-02T00:00:00.000Z');
    expect(wholeUtcDays({ start: midnight, end: midnight + DAY - 1 })).toEqual({
      start: midnight,
      end: midnight + DAY,
    });
    expect(wholeUtcDays({ start: midnight + 1, end: midnight + DAY + 5 })).toBeNull();
  });
});
