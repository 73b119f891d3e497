/** The plain-text messages: a digest's order. */
import { describe, expect, it } from 'vitest';
import type { TweetNotice } from '../types.js';
import { digestMessage } from './fallback-format.js';

const notice = (tweetId: string, createdAt: string): TweetNotice => ({
  handle: 'XDevelopers',
  authorName: 'X Developers',
  tweetId,
  text: `Post ${tweetId}`,
  url: `https://x.com/XDevelopers/status/${tweetId}`,
  createdAt,
  likes: 0,
  retweets: 0,
  replies: 0,
  quotes: 0,
  photoUrls: [],
  previewUrl: null,
});

const linked = (text: string) => [...text.matchAll(/status\/(\d+)/g)].map((match) => match[1]);

describe('digest message', () => {
  it('lists the notices in posting order, posts of one second by id, whatever order they came in', () => {
    const second = '2026-01-01T12:00:00.000Z';
    const posted = [
      notice('1000000000000000005', '2026-01-01T11:59:59.000Z'),
      notice('999999999999999999', second),
      notice('1000000000000000000', second),
      notice('1000000000000000001', second),
    ];
    const ids = posted.map((entry) => entry.tweetId);
    const given = [posted[2]!, posted[3]!, posted[0]!, posted[1]!];
    const telegram = digestMessage('telegram', given);
    expect(telegram.channel === 'telegram' && linked(telegram.html)).toEqual(ids);
    const discord = digestMessage('discord', given);
    expect(discord.channel === 'discord' && linked(discord.message.content ?? '')).toEqual(ids);
    expect(given.map((entry) => entry.tweetId)).not.toEqual(ids);
  });
});
