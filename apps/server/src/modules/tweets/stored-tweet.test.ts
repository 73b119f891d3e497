import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  PARSED_TWEET_COLUMNS,
  parseTweetRow,
  parseTweetValues,
  storedTime,
  tweetKind,
  type ParsedTweetRow,
  type ParsedTweetValues,
} from './stored-tweet.js';

describe('storedTime', () => {
  it('reads every time as Date.parse does', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date(0),
          max: new Date('9999-12-31T23:59:59.999Z'),
          noInvalidDate: true,
        }),
        (date) => {
          const text = date.toISOString();
          expect(storedTime(text)).toBe(Date.parse(text));
        },
      ),
    );
  });

  it('leaves other forms and impossible times to Date.parse, whatever they give', () => {
    for (const text of [
      '2026-02-30T10:00:00.000Z',
      '2026-13-01T00:00:00.000Z',
      '2026-11-00T00:00:00.000Z',
      '2026-11-29T24:00:00.000Z',
      '2026-11-29T23:60:00.000Z',
      '2026-11-29T23:59:60.000Z',
      '2026-11-29T08:00:00Z',
      '2026-11-29T08:00:00.000+01:00',
      '2026-11-29 08:00:00.000Z',
      '2026-11-29T08:00:0a.000Z',
      '2026-11-29t08:00:00.000z',
      'Sat Nov 28 2026',
      '',
    ]) {
      expect(storedTime(text)).toStrictEqual(Date.parse(text));
    }
  });

  it('reads a changed digit anywhere as Date.parse does', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date(0),
          max: new Date('2100-01-01T00:00:00.000Z'),
          noInvalidDate: true,
        }),
        fc.nat(23),
        fc.constantFrom(...'0123456789-:.TZx'),
        (date, at, char) => {
          const text = date.toISOString();
          const changed = text.slice(0, at) + char + text.slice(at + 1);
          expect(storedTime(changed)).toStrictEqual(Date.parse(changed));
        },
      ),
    );
  });
});

describe('tweetKind', () => {
  it('reads the stored lists of reference types, each as often as asked', () => {
    for (let round = 0; round < 2; round++) {
      expect(tweetKind('[]')).toEqual({ isRetweet: false, isQuote: false, isReply: false });
      expect(tweetKind('["retweeted"]')).toEqual({
        isRetweet: true,
        isQuote: false,
        isReply: false,
      });
      expect(tweetKind('["replied_to","quoted"]')).toEqual({
        isRetweet: false,
        isQuote: true,
        isReply: true,
      });
      expect(tweetKind('not json')).toEqual({ isRetweet: false, isQuote: false, isReply: false });
    }
  });
});

describe('parseTweetRow', () => {
  const row: ParsedTweetRow = {
    tweet_id: '1',
    text: 'hello #perch',
    created_at: '2026-11-29T08:00:00.123Z',
    lang: 'en',
    like_count: 3,
    retweet_count: 2,
    reply_count: 1,
    quote_count: 0,
    impression_count: null,
    conversation_id: '1',
    in_reply_to_user_id: null,
    referenced_types: '["quoted"]',
    hashtags: '["perch"]',
    urls: '[]',
    media: '[{"type":"photo","url":"https://pbs.twimg.com/a.jpg","previewUrl":null}]',
  };

  it('reads the columns it names', () => {
    expect(parseTweetRow(row)).toEqual({
      id: '1',
      text: 'hello #perch',
      createdAt: Date.parse('2026-11-29T08:00:00.123Z'),
      lang: 'en',
      likes: 3,
      retweets: 2,
      replies: 1,
      quotes: 0,
      impressions: null,
      conversationId: '1',
      inReplyToUserId: null,
      isRetweet: false,
      isQuote: true,
      isReply: false,
      hashtags: ['perch'],
      urls: [],
      media: [{ type: 'photo', url: 'https://pbs.twimg.com/a.jpg', previewUrl: null }],
    });
  });

  it('reads the columns as a list of values alike', () => {
    const values = (r: ParsedTweetRow) =>
      PARSED_TWEET_COLUMNS.map((column) => r[column]) as unknown as ParsedTweetValues;
    expect(parseTweetValues(values(row))).toEqual(parseTweetRow(row));
    const other = { ...row, lang: null, in_reply_to_user_id: '7', referenced_types: 'bad' };
    expect(parseTweetValues(values(other))).toEqual(parseTweetRow(other));
    const first = parseTweetValues(values(row));
    first.urls.push('changed');
    expect(parseTweetValues(values(row)).urls).toEqual([]);
  });

  it('gives every tweet lists of its own', () => {
    const first = parseTweetRow({ ...row, hashtags: '[]' });
    const second = parseTweetRow({ ...row, hashtags: '[]' });
    first.hashtags.push('changed');
    expect(second.hashtags).toEqual([]);
  });
});
