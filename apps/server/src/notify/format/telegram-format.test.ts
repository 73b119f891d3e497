/**
 * The Telegram rendering, read back with the fake server's parser (which refuses what Telegram
 * refuses), so every assertion is about what a person sees in the chat.
 */
import { describe, expect, it } from 'vitest';
import { parseTelegramHtml } from '../../../test/fakes/fake-telegram-server.js';
import { makeNotice as notice } from '../../../test/factories.js';
import { escapeHtml, htmlToPlainText } from './telegram-html.js';
import {
  TELEGRAM_CAPTION_LIMIT,
  TELEGRAM_TEXT_LIMIT,
  telegramMessages,
  type TelegramOutgoing,
} from './telegram-format.js';

/** What Telegram would show: fails the test when Telegram would refuse the HTML. */
function read(html: string): string {
  const parsed = parseTelegramHtml(html);
  if ('error' in parsed) throw new Error(`Telegram would refuse ${html}: ${parsed.error}`);
  return parsed.text;
}

const htmlOf = (message: TelegramOutgoing) =>
  message.kind === 'text' ? message.html : message.captionHtml;

/** Lengths as Telegram counts them (after parsing, trimmed). */
const visible = (message: TelegramOutgoing) => [...read(htmlOf(message)).trim()].length;

const FOOTER = '892 likes · 156 retweets · 23 replies · 12 quotes\nOpen on X';

describe('telegramMessages', () => {
  it('renders author, text, metrics and link as one HTML message', () => {
    const [message, ...rest] = telegramMessages(notice());
    expect(rest).toEqual([]);
    expect(message).toEqual({
      kind: 'text',
      html:
        '<b>X Developers</b> @XDevelopers\nLaunch day! #DevsInTheDetails\n\n' +
        '892 likes · 156 retweets · 23 replies · 12 quotes\n' +
        '<a href="https://x.com/XDevelopers/status/1524796546306478083">Open on X</a>',
    });
  });

  it('escapes every piece of text, so markup in a tweet shows as typed', () => {
    const text = `<b>bold?</b> & "quotes" 'single' &amp; <a href="x">link</a> <3 a<b>c`;
    const messages = telegramMessages(
      notice({
        text,
        authorName: '<i>Evil & Co</i>',
        url: 'https://x.com/a/status/1?x="><b>&y=<',
      }),
    );
    expect(messages).toHaveLength(1);
    const html = htmlOf(messages[0]!);
    expect(read(html)).toBe(`<i>Evil & Co</i> @XDevelopers\n${text}\n\n${FOOTER}`);
    expect(html).toContain(
      '<a href="https://x.com/a/status/1?x=&quot;&gt;&lt;b&gt;&amp;y=&lt;">Open on X</a>',
    );
    // Only the tags written by the formatter remain.
    expect(html.match(/<[a-z/][^>]*>/g)).toEqual([
      '<b>',
      '</b>',
      '<a href="https://x.com/a/status/1?x=&quot;&gt;&lt;b&gt;&amp;y=&lt;">',
      '</a>',
    ]);
  });

  it('names the account by handle when the display name is unknown', () => {
    const html = htmlOf(telegramMessages(notice({ authorName: null }))[0]!);
    expect(html.startsWith('<b>@XDevelopers</b>\n')).toBe(true);
  });

  it('keeps a message whose text fills exactly 4096 characters whole, and splits at 4097', () => {
    const fixed = read(htmlOf(telegramMessages(notice({ text: 'x' }))[0]!)).length - 1;
    const exact = notice({ text: 'y'.repeat(TELEGRAM_TEXT_LIMIT - fixed) });
    const one = telegramMessages(exact);
    expect(one).toHaveLength(1);
    expect(visible(one[0]!)).toBe(TELEGRAM_TEXT_LIMIT);

    const over = telegramMessages(notice({ text: `${'y'.repeat(TELEGRAM_TEXT_LIMIT - fixed)}z` }));
    expect(over).toHaveLength(2);
    for (const message of over) expect(visible(message)).toBeLessThanOrEqual(TELEGRAM_TEXT_LIMIT);
  });

  it('splits a 5,000-character tweet between words, author first and link last', () => {
    const words = Array.from({ length: 1000 }, (_, i) => `w${String(i).padStart(3, '0')}`);
    const text = words.join(' ');
    expect(text.length).toBe(4999);
    const messages = telegramMessages(notice({ text: `${text}.` }));
    expect(messages.map((m) => m.kind)).toEqual(['text', 'text']);
    const [first, second] = messages.map((m) => read(htmlOf(m)));
    for (const message of messages)
      expect(visible(message)).toBeLessThanOrEqual(TELEGRAM_TEXT_LIMIT);
    expect(first!.startsWith('X Developers @XDevelopers\nw000 w001')).toBe(true);
    expect(second!.endsWith(`w999.\n\n${FOOTER}`)).toBe(true);
    // No word is cut, none is lost, and the split is at a space.
    const body = `${first!.split('\n')[1]} ${second!.split('\n\n')[0]}`;
    expect(body).toBe(`${text}.`);
  });

  it('prefers a line break to a space when splitting', () => {
    const paragraph = 'word '.repeat(600).trim();
    const text = `${paragraph}\n${paragraph}`;
    const [first, second] = telegramMessages(notice({ text })).map((m) => read(htmlOf(m)));
    expect(first).toBe(`X Developers @XDevelopers\n${paragraph}`);
    expect(second).toBe(`${paragraph}\n\n${FOOTER}`);
  });

  it('splits 5,000 characters of markup-like text with every message valid HTML', () => {
    const text = `<b>&"'`.repeat(834).slice(0, 5000);
    const messages = telegramMessages(notice({ text }));
    expect(messages.length).toBe(2);
    let seen = '';
    messages.forEach((message, index) => {
      expect(visible(message)).toBeLessThanOrEqual(TELEGRAM_TEXT_LIMIT);
      const shown = read(htmlOf(message));
      seen += index === 0 ? shown.slice('X Developers @XDevelopers\n'.length) : shown;
    });
    // One long word: cut at the limit, nothing lost or doubled.
    expect(seen).toBe(`${text}\n\n${FOOTER}`);
  });

  it('never splits an emoji in two', () => {
    const text = '😀'.repeat(3000);
    const messages = telegramMessages(notice({ text }));
    expect(messages.length).toBeGreaterThan(1);
    for (const message of messages) {
      const shown = read(htmlOf(message));
      expect(shown).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
      expect(shown.length).toBeLessThanOrEqual(TELEGRAM_TEXT_LIMIT);
    }
  });

  it('sends one photo with the whole notice as caption when it fits in 1024', () => {
    const messages = telegramMessages(notice({ photoUrls: ['https://pbs.twimg.com/media/a.jpg'] }));
    expect(messages).toEqual([
      {
        kind: 'photo',
        photoUrl: 'https://pbs.twimg.com/media/a.jpg',
        captionHtml: htmlOf(telegramMessages(notice())[0]!),
      },
    ]);
  });

  it('keeps a caption of exactly 1024 characters, and moves a longer text to a follow-up', () => {
    const fixed = read(htmlOf(telegramMessages(notice({ text: 'x' }))[0]!)).length - 1;
    const photos = ['https://pbs.twimg.com/media/a.jpg'];
    const exact = telegramMessages(
      notice({ text: 'c'.repeat(TELEGRAM_CAPTION_LIMIT - fixed), photoUrls: photos }),
    );
    expect(exact.map((m) => m.kind)).toEqual(['photo']);
    expect(visible(exact[0]!)).toBe(TELEGRAM_CAPTION_LIMIT);

    const text = 'c'.repeat(TELEGRAM_CAPTION_LIMIT - fixed + 1);
    const over = telegramMessages(notice({ text, photoUrls: photos }));
    expect(over.map((m) => m.kind)).toEqual(['photo', 'text']);
    expect(read(htmlOf(over[0]!))).toBe('X Developers @XDevelopers\nOpen on X');
    expect(read(htmlOf(over[1]!))).toBe(`X Developers @XDevelopers\n${text}\n\n${FOOTER}`);
  });

  it('groups 2-10 photos and leaves out photos past the tenth', () => {
    const urls = Array.from({ length: 12 }, (_, i) => `https://pbs.twimg.com/media/${i}.jpg`);
    const two = telegramMessages(notice({ photoUrls: urls.slice(0, 2) }));
    expect(two).toMatchObject([{ kind: 'media_group', photoUrls: urls.slice(0, 2) }]);
    const many = telegramMessages(notice({ photoUrls: urls }));
    expect(many).toMatchObject([{ kind: 'media_group', photoUrls: urls.slice(0, 10) }]);
  });

  it('sends a 5,000-character tweet with photos as a short caption plus split text', () => {
    const messages = telegramMessages(
      notice({
        text: 'long '.repeat(1000).trim(),
        photoUrls: ['https://pbs.twimg.com/media/a.jpg', 'https://pbs.twimg.com/media/b.jpg'],
      }),
    );
    expect(messages.map((m) => m.kind)).toEqual(['media_group', 'text', 'text']);
    expect(visible(messages[0]!)).toBeLessThanOrEqual(TELEGRAM_CAPTION_LIMIT);
    for (const m of messages.slice(1)) expect(visible(m)).toBeLessThanOrEqual(TELEGRAM_TEXT_LIMIT);
  });

  it('links the preview still of a video or GIF in a text message', () => {
    const messages = telegramMessages(
      notice({ previewUrl: 'https://pbs.twimg.com/ext_tw_video_thumb/1/pu/img/a.jpg?x=1&y=2' }),
    );
    expect(messages).toHaveLength(1);
    const html = htmlOf(messages[0]!);
    expect(messages[0]!.kind).toBe('text');
    expect(html).toContain(
      '<a href="https://pbs.twimg.com/ext_tw_video_thumb/1/pu/img/a.jpg?x=1&amp;y=2">Video preview</a>',
    );
    expect(read(html).endsWith('Open on X · Video preview')).toBe(true);
  });

  it('renders a tweet without text (a photo alone) with author and metrics', () => {
    const messages = telegramMessages(notice({ text: '  ' }));
    expect(read(htmlOf(messages[0]!))).toBe(`X Developers @XDevelopers\n${FOOTER}`);
  });
});

describe('telegram HTML helpers', () => {
  it('escapes the four characters Telegram requires', () => {
    expect(escapeHtml(`<b>&"'`)).toBe(`&lt;b&gt;&amp;&quot;'`);
  });

  it('turns HTML back into what a person reads', () => {
    expect(
      htmlToPlainText(
        '<b>A &amp; B</b> &lt;3 <a href="https://x.com/?a=1&amp;b=2">Open</a> &#128512;',
      ),
    ).toBe('A & B <3 Open 😀');
    expect(htmlToPlainText('a <3 b > c')).toBe('a <3 b > c');
  });
});
