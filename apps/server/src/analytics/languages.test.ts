import { describe, expect, it } from 'vitest';
import { languages } from './languages.js';
import { makeTweet, prepare } from './test-factories.js';

describe('languages', () => {
  it('counts posts per language, missing as und, by count then code', () => {
    const langs = ['fr', 'en', null, 'en', 'es', '', 'en', 'en'];
    const prepared = prepare({
      tweets: [
        ...langs.map((lang, index) => makeTweet({ id: String(index + 1), lang })),
        makeTweet({ id: '99', lang: 'de', isRetweet: true }),
      ],
    });
    expect(languages(prepared)).toEqual({
      languages: [
        { lang: 'en', count: 4, percentage: 50 },
        { lang: 'und', count: 2, percentage: 25 },
        { lang: 'es', count: 1, percentage: 12.5 },
        { lang: 'fr', count: 1, percentage: 12.5 },
      ],
    });
  });

  it('is empty without posts', () => {
    expect(languages(prepare())).toEqual({ languages: [] });
  });
});
