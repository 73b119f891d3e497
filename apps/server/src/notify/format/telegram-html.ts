/**
 * Telegram's HTML parse mode (docs/spec-notes.md, Telegram HTML): every `<`, `>` and `&` of
 * text must be written as an entity, and `"` inside an attribute as `&quot;`. Only
 * `&lt; &gt; &amp; &quot;` and numeric entities are understood, so nothing else is produced here.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** Escapes text for Telegram HTML, in element content and in `href="..."` alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (ch) => ESCAPES[ch]!);
}

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

/**
 * The text a person would read, for resending a message as plain text when Telegram refuses
 * its markup: tags are dropped and entities decoded. Only things shaped like tags are dropped,
 * so a stray `<3` survives.
 */
export function htmlToPlainText(html: string): string {
  return html
    .replace(/<\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?\/?>/g, '')
    .replace(/&(#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|lt|gt|amp|quot);/g, (entity, body: string) => {
      if (!body.startsWith('#')) return NAMED[body]!;
      const hex = body[1] === 'x' || body[1] === 'X';
      const code = Number.parseInt(body.slice(hex ? 2 : 1), hex ? 16 : 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    });
}
