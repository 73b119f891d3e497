import type { Tweet } from '@perch/shared';

/**
 * RSS 2.0 and JSON Feed 1.1 documents of one handle's latest tweets. Written by hand: the
 * formats are small, and every text goes through `xmlText` (XML escaping, and characters XML
 * 1.0 cannot hold removed) or JSON.stringify.
 */

export interface FeedSource {
  /** The handle as stored (its case as X has it). */
  username: string;
  displayName: string | null;
  /** This feed's own address (the secret one), and the other format's. */
  selfUrl: string;
  /** The newest first. */
  tweets: Tweet[];
  /** When the content last changed: the newest `first_seen_at` of the items (or the link's). */
  updatedAt: string;
}

/** Characters XML 1.0 allows: tab, newline, carriage return and the rest from U+0020 on. */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text safe inside an XML element or a double- or single-quoted attribute. */
export function xmlText(value: string): string {
  return value
    .replace(NOT_XML_CHAR, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** HTML text (for a description or content_html), escaped once at this level. */
function htmlText(value: string): string {
  return value
    .replace(NOT_XML_CHAR, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

const TITLE_LENGTH = 100;

/** A one-line title: the tweet's first words (a feed reader's list shows it). */
export function itemTitle(tweet: Tweet): string {
  const line = tweet.text.replace(/\s+/gu, ' ').trim();
  if (line === '') return tweet.media.length > 0 ? 'Photo or video' : 'Post';
  const chars = [...line];
  return chars.length > TITLE_LENGTH ? `${chars.slice(0, TITLE_LENGTH - 1).join('')}…` : line;
}

/** Only http(s) addresses go into markup; anything else is left out. */
function webUrl(url: string | null): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.toString() : null;
  } catch {
    return null;
  }
}

/** The tweet as HTML: its text with line breaks, then its photos (and video stills, linked). */
export function itemHtml(tweet: Tweet): string {
  const parts = [`<p>${htmlText(tweet.text).replace(/\r?\n/g, '<br>')}</p>`];
  for (const media of tweet.media) {
    const image = webUrl(media.type === 'photo' ? media.url : (media.preview_url ?? media.url));
    if (!image) continue;
    const alt = media.type === 'photo' ? 'Photo' : 'Video';
    const img = `<img src="${htmlText(image)}" alt="${alt}">`;
    parts.push(
      media.type === 'photo'
        ? `<p>${img}</p>`
        : `<p><a href="${htmlText(tweet.url)}">${img}</a></p>`,
    );
  }
  return parts.join('');
}

const feedTitle = (source: FeedSource) =>
  source.displayName
    ? `${source.displayName} (@${source.username}) on X`
    : `@${source.username} on X`;

const profileUrl = (source: FeedSource) => `https://x.com/${source.username}`;

/** RFC 822 date, as RSS 2.0 wants it ("Thu, 26 Nov 2026 01:13:01 GMT"). */
const rfc822 = (iso: string) => new Date(iso).toUTCString();

export function renderRss(source: FeedSource): string {
  const items = source.tweets.map((tweet) =>
    [
      '    <item>',
      `      <title>${xmlText(itemTitle(tweet))}</title>`,
      `      <link>${xmlText(tweet.url)}</link>`,
      `      <guid isPermaLink="true">${xmlText(tweet.url)}</guid>`,
      `      <pubDate>${rfc822(tweet.created_at)}</pubDate>`,
      `      <description>${xmlText(itemHtml(tweet))}</description>`,
      '    </item>',
    ].join('\n'),
  );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">',
    '  <channel>',
    `    <title>${xmlText(feedTitle(source))}</title>`,
    `    <link>${xmlText(profileUrl(source))}</link>`,
    `    <description>${xmlText(`The latest posts of @${source.username}, collected by Perch.`)}</description>`,
    `    <atom:link href="${xmlText(source.selfUrl)}" rel="self" type="application/rss+xml"/>`,
    `    <lastBuildDate>${rfc822(source.updatedAt)}</lastBuildDate>`,
    '    <generator>Perch</generator>',
    ...items,
    '  </channel>',
    '</rss>',
    '',
  ].join('\n');
}

/** The MIME type of a media item's address, as well as it can be told. */
function mediaType(url: string, type: string): string {
  if (type === 'photo') return /\.png(\?|$)/i.test(url) ? 'image/png' : 'image/jpeg';
  return /\.mp4(\?|$)/i.test(url) ? 'video/mp4' : 'image/jpeg';
}

export function renderJsonFeed(source: FeedSource): string {
  const feed = {
    version: 'https://jsonfeed.org/version/1.1',
    title: feedTitle(source),
    home_page_url: profileUrl(source),
    feed_url: source.selfUrl,
    description: `The latest posts of @${source.username}, collected by Perch.`,
    authors: [{ name: source.displayName ?? `@${source.username}`, url: profileUrl(source) }],
    items: source.tweets.map((tweet) => {
      const attachments = tweet.media.flatMap((media) => {
        const url = webUrl(media.url ?? media.preview_url);
        return url ? [{ url, mime_type: mediaType(url, media.type) }] : [];
      });
      const image = webUrl(
        tweet.media.find((media) => media.type === 'photo')?.url ??
          tweet.media[0]?.preview_url ??
          null,
      );
      return {
        id: tweet.url,
        url: tweet.url,
        title: itemTitle(tweet),
        content_text: tweet.text,
        content_html: itemHtml(tweet),
        date_published: tweet.created_at,
        ...(image ? { image } : {}),
        ...(attachments.length > 0 ? { attachments } : {}),
      };
    }),
  };
  return `${JSON.stringify(feed, null, 2)}\n`;
}
