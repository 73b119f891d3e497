import { describe, expect, it } from 'vitest';
import { RunCounter, scanWords } from './word-scanner.js';

/** The definition the scanner implements, as docs/analytics.md words it: the reference. */
const byRegex = (text: string): string[] =>
  text.replace(/https?:\/\/\S+|@\w+|#[\p{L}\p{N}_]+/gu, ' ').match(/\p{L}+/gu) ?? [];

const scanned = (text: string): string[] => {
  const runs: string[] = [];
  scanWords(text, { add: (source, start, end) => runs.push(source.slice(start, end)) });
  return runs;
};

/** A small deterministic generator, so a failure names the same strings every run. */
function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

describe('scanWords', () => {
  it('finds letter runs outside URLs, mentions and hashtags', () => {
    expect(scanned("Hi @bob_1! See https://t.co/x?a=b#c now, it's #Great_2 day")).toEqual([
      'Hi',
      'See',
      'now',
      'it',
      's',
      'day',
    ]);
  });

  const tricky = [
    '',
    'plain words only',
    'foohttps://example.org/x bar',
    'https:// alone, http://',
    'mail@example.com and #tag@user and @user#tag',
    '#café #東京 #𝐚𝐛𝐜 #_ # @ @@x ##y',
    'naïve café über 東京タワー Ελληνικά العربية',
    '𝐀𝐁𝐂 𝐚𝐛 \ud835 lone \udc00 surrogates\ud835',
    'tab\tnew\nline\u00a0nbsp\u3000ideographic https://a.b/\u2028after',
    '42go go42 x1y2z İstanbul ΟΔΟΣ',
    'HTTPS://UPPER.CASE/ is not a url for the definition',
  ];

  it('agrees with the regex definition on tricky texts', () => {
    for (const text of tricky) expect(scanned(text), text).toEqual(byRegex(text));
  });

  it('agrees with the regex definition on random texts', () => {
    const random = lcg(11);
    const pieces = [
      'a',
      'Z',
      'é',
      '東',
      '𝐚',
      '1',
      '٣',
      '_',
      ' ',
      '\t',
      '\u00a0',
      '\u3000',
      "'",
      '.',
      '/',
      ':',
      '@',
      '#',
      'h',
      'http',
      'https://',
      'http://',
      '\ud835',
      '\udc00',
      'x',
      '-',
      'İ',
    ];
    for (let i = 0; i < 5_000; i++) {
      let text = '';
      const length = Math.floor(random() * 20);
      for (let j = 0; j < length; j++) text += pieces[Math.floor(random() * pieces.length)];
      expect(scanned(text), JSON.stringify(text)).toEqual(byRegex(text));
    }
  });
});

describe('RunCounter', () => {
  it('counts equal ranges of different texts together, through collisions and growth', () => {
    const counter = new RunCounter();
    const expected = new Map<string, number>();
    const random = lcg(5);
    for (let i = 0; i < 20_000; i++) {
      const word = `w${Math.floor(random() * 3_000).toString(36)}`;
      // The same word at different places of different texts.
      const text = `${'x'.repeat(i % 7)} ${word} .`;
      const start = (i % 7) + 1;
      counter.add(text, start, start + word.length);
      expected.set(word, (expected.get(word) ?? 0) + 1);
    }
    expect(new Map(counter.entries())).toEqual(expected);
  });

  it('tells apart ranges of equal length and different letters', () => {
    const counter = new RunCounter();
    counter.add('abc abd abc', 0, 3);
    counter.add('abc abd abc', 4, 7);
    counter.add('abc abd abc', 8, 11);
    counter.add('', 0, 0);
    expect(new Map(counter.entries())).toEqual(
      new Map([
        ['abc', 2],
        ['abd', 1],
        ['', 1],
      ]),
    );
  });
});
