import { describe, expect, it } from 'vitest';
import { catchingUpText, gapCutText, isGapCutText } from '../lib/collection-status.js';
import { gapCutByDepthLimit, walkOutcome } from './poll.js';
import type { SourceTweet } from '../domain/tweet-source.js';
import { NO_ENGAGEMENT, makeTweet } from '../../test/factories.js';

const tweet = (id: string, createdAt: string): SourceTweet =>
  makeTweet({ id, text: `post ${id}`, createdAt, ...NO_ENGAGEMENT });

const NOTE = gapCutText(3_200, '2026-06-01T08:15:30.000Z');
const idle = { newest_tweet_id: '100', catch_up_newest_id: null, catch_up_found: 0 };
const page = [tweet('120', '2026-06-02T10:00:00.000Z'), tweet('110', '2026-06-02T09:00:00.000Z')];

describe('walkOutcome: what a poll changes on its handle', () => {
  it.each([
    {
      case: 'a short walk moves the newest id and clears the text',
      handle: { ...idle, last_error: 'X API error 503: down' },
      walk: { tweets: page, cursor: null },
      fresh: 2,
      depth: 3_200,
      update: {
        newest_tweet_id: '120',
        catch_up_cursor: null,
        catch_up_newest_id: null,
        catch_up_found: 0,
        last_error: null,
      },
    },
    {
      case: 'a walk that stops short keeps its place; the newest id waits',
      handle: { ...idle, last_error: null },
      walk: { tweets: page, cursor: 'next' },
      fresh: 2,
      depth: 3_200,
      update: {
        catch_up_cursor: 'next',
        catch_up_newest_id: '120',
        catch_up_found: 2,
        last_error: 'Catching up: 2 new posts so far',
      },
    },
    {
      case: 'a walk going on counts on and keeps the newest post seen first',
      handle: { newest_tweet_id: '100', catch_up_newest_id: '900', catch_up_found: 1_000 },
      walk: { tweets: page, cursor: 'further' },
      fresh: 2,
      depth: 3_200,
      update: {
        catch_up_cursor: 'further',
        catch_up_newest_id: '900',
        catch_up_found: 1_002,
        last_error: 'Catching up: 1,002 new posts so far',
      },
    },
    {
      case: 'the end of a catch-up moves the newest id to the newest post it saw',
      handle: { newest_tweet_id: '100', catch_up_newest_id: '900', catch_up_found: 1_000 },
      walk: { tweets: page, cursor: null },
      fresh: 2,
      depth: 3_200,
      update: {
        newest_tweet_id: '900',
        catch_up_cursor: null,
        catch_up_newest_id: null,
        catch_up_found: 0,
        last_error: null,
      },
    },
    {
      case: 'a catch-up that found what X reaches says older posts were out of reach',
      handle: { newest_tweet_id: '100', catch_up_newest_id: '9000', catch_up_found: 3_100 },
      walk: { tweets: page, cursor: null },
      fresh: 100,
      depth: 3_200,
      update: {
        newest_tweet_id: '9000',
        catch_up_found: 0,
        last_error: gapCutText(3_200, '2026-06-02T09:00:00.000Z'),
      },
    },
    {
      case: 'a source without a depth limit never says so',
      handle: { newest_tweet_id: '100', catch_up_newest_id: '9000', catch_up_found: 5_000 },
      walk: { tweets: page, cursor: null },
      fresh: 2,
      depth: null,
      update: { newest_tweet_id: '9000', last_error: null },
    },
    {
      case: 'a later poll keeps the note',
      handle: { ...idle, last_error: NOTE },
      walk: { tweets: [], cursor: null },
      fresh: 0,
      depth: 3_200,
      update: { newest_tweet_id: '100', last_error: NOTE },
    },
    {
      case: 'ids compare as numbers, not as text',
      handle: { newest_tweet_id: '99', catch_up_newest_id: null, catch_up_found: 0 },
      walk: { tweets: [tweet('100', '2026-06-02T10:00:00.000Z')], cursor: null },
      fresh: 1,
      depth: 3_200,
      update: { newest_tweet_id: '100' },
    },
  ])('$case', ({ handle, walk, fresh, depth, update }) => {
    const row = { last_error: null, ...handle };
    expect(walkOutcome(row, walk, fresh, depth)).toMatchObject(update);
  });
});

describe('catch-up texts', () => {
  it('count new posts the way people write numbers', () => {
    expect(catchingUpText(1)).toBe('Catching up: 1 new post so far');
    expect(catchingUpText(2_500)).toBe('Catching up: 2,500 new posts so far');
  });

  it('say from when posts could not be read, and are told apart from other texts', () => {
    expect(NOTE).toBe(
      'X returns only the latest 3,200 posts: posts of the pause before 2026-06-01 08:15 UTC could not be read',
    );
    expect(gapCutText(3_200, null)).toBe(
      'X returns only the latest 3,200 posts: posts of the pause could not be read',
    );
    expect(isGapCutText(NOTE)).toBe(true);
    expect(isGapCutText(catchingUpText(5))).toBe(false);
    expect(
      isGapCutText('X returns only the latest 3,200 posts: collected back to 2026-06-01'),
    ).toBe(false);
    expect(isGapCutText(null)).toBe(false);
  });

  it('a catch-up is cut by the depth limit from 98% of it (a few posts may be deleted)', () => {
    expect(gapCutByDepthLimit(3_200, 3_136)).toBe(true);
    expect(gapCutByDepthLimit(3_200, 3_135)).toBe(false);
    expect(gapCutByDepthLimit(null, 10_000)).toBe(false);
  });
});
