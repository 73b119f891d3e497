import { describe, expect, it } from 'vitest';
import {
  FILTER_MESSAGES,
  notificationFilterRequestSchema,
  type NotificationFilter,
} from '@perch/shared';
import { compileFilter, filterOfLink, prepareText } from './notification-filter.js';

const filter = (overrides: Partial<NotificationFilter>): NotificationFilter => ({
  include: [],
  exclude: [],
  media_only: false,
  ...overrides,
});

/** The reason the filter holds a text-only tweet back, or null. */
function verdict(rules: Partial<NotificationFilter>, text: string, media: unknown[] = []) {
  const compiled = compileFilter(filter(rules));
  if (!compiled) return null;
  return compiled.heldBackReason({ text, media });
}

const contains = (text: string, term: string) => verdict({ include: [term] }, text) === null;

describe('notification filter matching', () => {
  it('matches whole words only', () => {
    expect(contains('Big giveaway today', 'giveaway')).toBe(true);
    expect(contains('Two giveaways today', 'giveaway')).toBe(false);
    expect(contains('The giveawayish mood', 'giveaway')).toBe(false);
    expect(contains('Supergiveaway', 'giveaway')).toBe(false);
    expect(contains('launch', 'launch')).toBe(true);
    // Digits and underscores belong to the word.
    expect(contains('model v2 is out', 'v2')).toBe(true);
    expect(contains('model v20 is out', 'v2')).toBe(false);
    expect(contains('my_launch_notes', 'launch')).toBe(false);
  });

  it('ignores case, in any script', () => {
    expect(contains('GIVEAWAY now', 'giveaway')).toBe(true);
    expect(contains('giveaway now', 'GiveAway')).toBe(true);
    expect(contains('ÜBER alles', 'über')).toBe(true);
    expect(contains('ЗАПУСК ракеты', 'запуск')).toBe(true);
    expect(contains('Το ΔΕΛΤΑ', 'δέλτα')).toBe(false); // accents count: δέλτα is not δελτα
    expect(contains('Το ΔΈΛΤΑ', 'δέλτα')).toBe(true);
  });

  it('sees punctuation, hashtags, mentions and emoji as word edges', () => {
    expect(contains('Win a #giveaway!', 'giveaway')).toBe(true);
    expect(contains('Win a #giveaway!', '#giveaway')).toBe(true);
    expect(contains('(giveaway)', 'giveaway')).toBe(true);
    expect(contains('giveaway, giveaway.', 'giveaway')).toBe(true);
    expect(contains('ask @nasa about it', 'nasa')).toBe(true);
    expect(contains('liftoff🚀today', 'liftoff')).toBe(true);
    expect(contains('Go 🚀 now', '🚀')).toBe(true);
    expect(contains('I love C++ and Rust', 'c++')).toBe(true);
    expect(contains('e-mail me', 'mail')).toBe(true);
    // An apostrophe inside a word keeps it one word, typographic or not.
    expect(contains("don't panic", 'don')).toBe(false);
    expect(contains('don’t panic', "don't")).toBe(true);
    expect(contains("don't panic", 'don’t')).toBe(true);
  });

  it('matches phrases across any white space, still as whole words', () => {
    expect(contains('A free\n  giveaway here', 'free giveaway')).toBe(true);
    expect(contains('FREE GIVEAWAY', 'free giveaway')).toBe(true);
    expect(contains('free giveaways', 'free giveaway')).toBe(false);
    expect(contains('carefree giveaway', 'free giveaway')).toBe(false);
    expect(contains('free, giveaway', 'free giveaway')).toBe(false);
  });

  it('finds words in scripts without spaces, and composed or decomposed accents alike', () => {
    expect(contains('参加抽奖活动', '抽奖')).toBe(true);
    expect(contains('参加抽奖活动', '奖活')).toBe(false);
    expect(contains('สวัสดีครับ', 'ครับ')).toBe(true);
    expect(contains('Un café noir', 'cafe\u0301')).toBe(true);
    expect(contains('Un cafe\u0301 noir', 'café')).toBe(true);
    expect(contains('Un cafe noir', 'café')).toBe(false);
  });

  it('treats regular-expression characters in terms as text', () => {
    expect(contains('price is $5.00 now', '$5.00')).toBe(true);
    expect(contains('price is $5x00 now', '$5.00')).toBe(false);
    expect(contains('a (b) c', '(b)')).toBe(true);
    expect(contains('what?', 'what?')).toBe(true);
    expect(contains('a/b testing', 'a/b')).toBe(true);
  });

  it('finds a whole-word match after a partial one earlier in the text', () => {
    expect(contains('giveaways and then a giveaway', 'giveaway')).toBe(true);
    expect(contains('aaa aa', 'aa')).toBe(true);
  });

  it('holds back on any excluded term, naming it', () => {
    const rules = { exclude: ['giveaway', 'free money'] };
    expect(verdict(rules, 'Huge GIVEAWAY!')).toBe(FILTER_MESSAGES.heldBackContains('giveaway'));
    expect(verdict(rules, 'Free  money inside')).toBe(
      FILTER_MESSAGES.heldBackContains('free money'),
    );
    expect(verdict(rules, 'Launch update')).toBeNull();
    expect(FILTER_MESSAGES.heldBackContains('giveaway')).toBe(
      'Held back by your filter: contains "giveaway"',
    );
  });

  it('needs one included term when there are any', () => {
    const rules = { include: ['launch', 'landing'] };
    expect(verdict(rules, 'Launch window opens')).toBeNull();
    expect(verdict(rules, 'A safe landing.')).toBeNull();
    expect(verdict(rules, 'Coffee break')).toBe(
      'Held back by your filter: contains none of "launch", "landing"',
    );
    expect(FILTER_MESSAGES.heldBackNoneOf(['a', 'b', 'c', 'd', 'e'])).toBe(
      'Held back by your filter: contains none of "a", "b", "c" and 2 more',
    );
  });

  it('media only holds back tweets without media; exclusion is reported first', () => {
    const rules = { media_only: true, exclude: ['ad'], include: ['launch'] };
    expect(verdict(rules, 'launch photo', [{ type: 'photo' }])).toBeNull();
    expect(verdict(rules, 'launch text')).toBe(FILTER_MESSAGES.heldBackNoMedia);
    expect(verdict(rules, 'launch ad', [{ type: 'photo' }])).toBe(
      FILTER_MESSAGES.heldBackContains('ad'),
    );
    expect(verdict(rules, 'a photo', [{ type: 'photo' }])).toBe(
      FILTER_MESSAGES.heldBackNoneOf(['launch']),
    );
  });

  it('an empty filter compiles to nothing (every tweet goes)', () => {
    expect(compileFilter(filter({}))).toBeNull();
    expect(compileFilter(filter({ media_only: true }))).not.toBeNull();
  });

  it('reads one prepared text for many filters', () => {
    const prepared = prepareText('Liftoff of the #Artemis rocket');
    const first = compileFilter(filter({ include: ['artemis'] }));
    const second = compileFilter(filter({ exclude: ['rocket'] }));
    const tweet = { text: 'ignored when prepared is given', media: [] };
    expect(first?.heldBackReason(tweet, prepared)).toBeNull();
    expect(second?.heldBackReason(tweet, prepared)).toBe(
      FILTER_MESSAGES.heldBackContains('rocket'),
    );
  });

  it('reads stored link columns, and treats junk as empty', () => {
    expect(
      filterOfLink({ filter_include: '["a","b"]', filter_exclude: '[]', filter_media_only: 1 }),
    ).toEqual({ include: ['a', 'b'], exclude: [], media_only: true });
    expect(
      filterOfLink({ filter_include: 'not json', filter_exclude: '{"a":1}', filter_media_only: 0 }),
    ).toEqual({ include: [], exclude: [], media_only: false });
  });
});

describe('notification filter request rules', () => {
  const parse = (body: unknown) => notificationFilterRequestSchema.safeParse(body);
  const message = (body: unknown) => {
    const result = parse(body);
    return result.success ? null : result.error.issues[0]?.message;
  };

  it('normalises terms: trimmed, quotes removed, spaces collapsed, duplicates dropped', () => {
    const result = parse({
      include: ['  launch ', '"free   giveaway"', '“Big news”', 'LAUNCH', 'a\tb'],
      exclude: [],
    });
    expect(result.success && result.data).toEqual({
      include: ['launch', 'free giveaway', 'Big news', 'a b'],
      exclude: [],
      media_only: false,
    });
    expect(parse({}).data).toEqual({ include: [], exclude: [], media_only: false });
  });

  it('refuses too many terms, long, empty or multi-line ones, and one in both lists', () => {
    const many = Array.from({ length: 21 }, (_, index) => `word${index}`);
    expect(message({ include: many })).toBe(FILTER_MESSAGES.tooManyInclude);
    expect(message({ exclude: many })).toBe(FILTER_MESSAGES.tooManyExclude);
    // 20 distinct after de-duplication is fine.
    expect(parse({ include: [...many.slice(0, 20), 'WORD0'] }).success).toBe(true);
    expect(message({ include: ['x'.repeat(51)] })).toBe(FILTER_MESSAGES.termTooLong);
    expect(parse({ include: ['x'.repeat(50)] }).success).toBe(true);
    expect(message({ include: ['   '] })).toBe(FILTER_MESSAGES.termEmpty);
    expect(message({ include: ['""'] })).toBe(FILTER_MESSAGES.termEmpty);
    expect(message({ include: ['two\nlines'] })).toBe(FILTER_MESSAGES.termInvalid);
    expect(message({ include: [42] })).toBe(FILTER_MESSAGES.termNotText);
    expect(message({ include: ['Launch'], exclude: ['launch'] })).toBe(
      FILTER_MESSAGES.termInBoth('Launch'),
    );
    expect(parse({ media_only: 'yes' }).success).toBe(false);
    // Emoji sequences (with zero-width joiners) are words too.
    expect(parse({ include: ['👩‍💻'] }).success).toBe(true);
  });
});
