/** The Discord rendering, checked against the fake server's copy of Discord's limits. */
import { describe, expect, it } from 'vitest';
import { discordMessageErrors } from '../../../test/fakes/fake-discord-server.js';
import { makeNotice as notice } from '../../../test/factories.js';
import {
  DISCORD_DESCRIPTION_LIMIT,
  DISCORD_EMBED_TOTAL_LIMIT,
  discordMessage,
  escapeDiscordMarkdown,
} from './discord-format.js';

/** The characters Discord adds up against the 6000 limit. */
function embedTotal(message: ReturnType<typeof discordMessage>): number {
  return message.embeds.reduce(
    (sum, e) =>
      sum +
      (e.title?.length ?? 0) +
      (e.description?.length ?? 0) +
      (e.author?.name.length ?? 0) +
      (e.footer?.text.length ?? 0) +
      (e.fields ?? []).reduce((n, f) => n + f.name.length + f.value.length, 0),
    0,
  );
}

describe('discordMessage', () => {
  it('builds one embed with author, text, link, time, colour and metrics', () => {
    expect(discordMessage(notice())).toEqual({
      content: 'New post from @XDevelopers',
      embeds: [
        {
          title: 'Open on X',
          url: 'https://x.com/XDevelopers/status/1524796546306478083',
          author: { name: 'X Developers (@XDevelopers)', url: 'https://x.com/XDevelopers' },
          description: 'Launch day! #DevsInTheDetails',
          timestamp: '2022-05-12T17:00:00.000Z',
          color: 0x1da1f2,
          footer: { text: '892 likes · 156 retweets · 23 replies · 12 quotes' },
        },
      ],
    });
  });

  it('shows the first photo, else the video preview, as the image', () => {
    const photos = discordMessage(
      notice({ photoUrls: ['https://p/1.jpg', 'https://p/2.jpg'], previewUrl: 'https://v/1.jpg' }),
    );
    expect(photos.embeds[0]!.image).toEqual({ url: 'https://p/1.jpg' });
    const video = discordMessage(notice({ previewUrl: 'https://v/1.jpg' }));
    expect(video.embeds[0]!.image).toEqual({ url: 'https://v/1.jpg' });
    expect(discordMessage(notice()).embeds[0]!.image).toBeUndefined();
  });

  it('keeps HTML-like text as typed (Discord does not read HTML)', () => {
    const text = `<b>&"' &amp; <i>`;
    const message = discordMessage(notice({ text }));
    expect(message.embeds[0]!.description).toBe(text);
    expect(discordMessageErrors(message as unknown as Record<string, unknown>)).toBeNull();
  });

  it('escapes Markdown outside links so handles and stars stay as typed', () => {
    const text =
      '**not bold** @some_user_x ~~no~~ `code` |spoiler|\n> not a quote\n# no heading\n- no list https://example.com/a_b_c*';
    const description = discordMessage(notice({ text })).embeds[0]!.description;
    expect(description).toBe(
      '\\*\\*not bold\\*\\* @some\\_user\\_x \\~\\~no\\~\\~ \\`code\\` \\|spoiler\\|\n\\> not a quote\n\\# no heading\n\\- no list https://example.com/a_b_c*',
    );
    expect(escapeDiscordMarkdown('@a_b')).toBe('@a\\_b');
    expect(discordMessage(notice({ handle: 'a_b_c' })).content).toBe('New post from @a\\_b\\_c');
  });

  it('cuts a 5,000-character tweet to 4096 with an ellipsis, within every limit', () => {
    const text = 'a'.repeat(5000);
    const message = discordMessage(notice({ text }));
    const description = message.embeds[0]!.description!;
    expect(description).toHaveLength(DISCORD_DESCRIPTION_LIMIT);
    expect(description.endsWith('a…')).toBe(true);
    expect(embedTotal(message)).toBeLessThanOrEqual(DISCORD_EMBED_TOTAL_LIMIT);
    expect(discordMessageErrors(message as unknown as Record<string, unknown>)).toBeNull();
  });

  it('keeps a description of exactly 4096 characters whole', () => {
    const text = 'b'.repeat(DISCORD_DESCRIPTION_LIMIT);
    expect(discordMessage(notice({ text })).embeds[0]!.description).toBe(text);
  });

  it('stays within 6000 in all when author name and text are both at their longest', () => {
    const message = discordMessage(notice({ authorName: 'N'.repeat(400), text: '*'.repeat(5000) }));
    const embed = message.embeds[0]!;
    expect(embed.author!.name.length).toBeLessThanOrEqual(256);
    expect(embedTotal(message)).toBeLessThanOrEqual(DISCORD_EMBED_TOTAL_LIMIT);
    // Escaped stars are cut between pairs, never leaving a backslash to escape the ellipsis.
    expect(embed.description!.endsWith('\\*…')).toBe(true);
    expect(discordMessageErrors(message as unknown as Record<string, unknown>)).toBeNull();
  });

  it('leaves out the description of a tweet without text', () => {
    expect(discordMessage(notice({ text: '' })).embeds[0]!.description).toBeUndefined();
  });
});
