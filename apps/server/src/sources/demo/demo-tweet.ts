/**
 * A demo tweet: its text, entities and metrics drawn from the persona and the slot (a pure
 * function of both and of the instant it is seen at, as engagement grows with age).
 */
import type { ReferenceType, SourceMedia, SourceTweet } from '../../domain/tweet-source.js';
import { demoUserId, HOUR, snowflake } from './demo-ids.js';
import type { Persona } from './demo-personas.js';
import { createRng, hashString, mix, type Rng } from './demo-random.js';
import { LANGUAGES, LINK_DOMAINS, OTHER_ACCOUNTS, PHRASES } from './demo-vocabulary.js';
import type { Slot } from './demo-slots.js';

/** Metrics approach their final value with this time constant (about 99% after 48 h). */
const METRIC_TAU_MS = 10 * HOUR;

/** Where a tweet stands in a conversation, and the start of its text. */
interface Shape {
  text: string;
  conversationId: string;
  inReplyToUserId: string | null;
  referencedTypes: ReferenceType[];
}

/** The hashtags, links and media of an original, reply, quote or thread part. */
interface Decorations {
  hashtags: string[];
  urls: string[];
  media: SourceMedia[];
}

type Metrics = Pick<
  SourceTweet,
  'likeCount' | 'retweetCount' | 'replyCount' | 'quoteCount' | 'impressionCount'
>;

/** Share of a metric's final value reached `ageMs` after posting. */
function saturation(ageMs: number): number {
  return ageMs <= 0 ? 0 : 1 - Math.exp(-ageMs / METRIC_TAU_MS);
}

function casing(rng: Rng, tag: string): string {
  const roll = rng.next();
  return roll < 0.7 ? tag : roll < 0.9 ? tag.toLowerCase() : tag.toUpperCase();
}

/** A retweet of `other`, a thread part, a reply to `other`, a quote or an original. */
function shapeOf(
  p: Persona,
  slot: Slot,
  rng: Rng,
  id: string,
  phrase: string,
  other: string,
): Shape {
  const shape: Shape = {
    text: phrase,
    conversationId: id,
    inReplyToUserId: null,
    referencedTypes: [],
  };
  if (slot.kind === 'retweet') {
    shape.text = `RT @${other}: ${phrase}`;
    shape.referencedTypes.push('retweeted');
  } else if (slot.kind === 'thread' && slot.root) {
    shape.text = `${slot.position + 1}/ ${phrase}`;
    shape.conversationId = snowflake(slot.root.ms, p.tag, slot.root.seq).toString();
    shape.inReplyToUserId = p.xUserId;
    shape.referencedTypes.push('replied_to');
  } else if (slot.kind === 'reply') {
    shape.text = `@${other} ${phrase}`;
    const rootMs = slot.ms - rng.int(60_000, 6 * HOUR);
    shape.conversationId = snowflake(rootMs, hashString(other) & 0x3ff, 0).toString();
    shape.inReplyToUserId = demoUserId(other);
    shape.referencedTypes.push('replied_to');
  } else if (slot.kind === 'quote') {
    shape.referencedTypes.push('quoted');
  }
  return shape;
}

/** Draws 0-2 of the persona's hashtags, maybe a link, maybe photos, a video or a GIF. */
function decorationsOf(p: Persona, rng: Rng, id: string): Decorations {
  const hashtags: string[] = [];
  const urls: string[] = [];
  const media: SourceMedia[] = [];
  const tagRoll = rng.next();
  const tagCount = tagRoll < 0.55 ? 0 : tagRoll < 0.88 ? 1 : 2;
  for (let k = 0; k < tagCount; k++) hashtags.push(casing(rng, rng.pick(p.hashtags)));
  if (rng.next() < 0.18) urls.push(`${rng.pick(LINK_DOMAINS)}/${id.slice(-8)}`);
  const mediaRoll = rng.next();
  const seedUrl = (n: number) => `https://picsum.photos/seed/${id}${n > 0 ? `-${n}` : ''}/800/450`;
  if (mediaRoll < 0.16) {
    const photos = rng.next() < 0.7 ? 1 : rng.int(2, 4);
    for (let n = 0; n < photos; n++)
      media.push({ type: 'photo', url: seedUrl(n), previewUrl: null });
  } else if (mediaRoll < 0.21) {
    media.push({ type: 'video', url: null, previewUrl: seedUrl(0) });
  } else if (mediaRoll < 0.25) {
    media.push({ type: 'animated_gif', url: null, previewUrl: seedUrl(0) });
  }
  return { hashtags, urls, media };
}

/** Heavy-tailed final engagement (log-normal around a persona-sized median), reached gradually. */
function metricsOf(p: Persona, slot: Slot, rng: Rng, now: number): Metrics {
  const share = saturation(now - slot.ms);
  const median = Math.max(0.5, Math.sqrt(p.baseFollowers) / 4);
  const finalLikes = median * Math.exp(rng.normal() * 1.3);
  const grow = (value: number) => Math.floor(value * share);
  const isRetweet = slot.kind === 'retweet';
  return {
    likeCount: isRetweet ? 0 : grow(finalLikes),
    retweetCount: grow(finalLikes * 0.15 * Math.exp(rng.normal() * 0.5)),
    replyCount: isRetweet ? 0 : grow(finalLikes * 0.05 * Math.exp(rng.normal() * 0.5)),
    quoteCount: isRetweet ? 0 : grow(finalLikes * 0.02 * Math.exp(rng.normal() * 0.5)),
    impressionCount: isRetweet ? 0 : grow(finalLikes * rng.int(40, 120) + p.baseFollowers * 0.05),
  };
}

/** Draws the text, entities and metrics of one slot as seen at `now`. */
export function buildTweet(p: Persona, slot: Slot, now: number): SourceTweet {
  const id = snowflake(slot.ms, p.tag, slot.seq).toString();
  const rng = createRng(mix(p.seed, slot.ms, slot.seq, 3));
  const lang = rng.next() < 0.8 ? p.lang : rng.pick(LANGUAGES);
  const phrase = rng.pick(PHRASES[lang] ?? PHRASES.en!);
  const other = rng.pick(OTHER_ACCOUNTS);
  const shape = shapeOf(p, slot, rng, id, phrase, other);
  // A retweet carries the shared post's text as it is; everything else gets its own extras.
  const extras: Decorations =
    slot.kind === 'retweet' ? { hashtags: [], urls: [], media: [] } : decorationsOf(p, rng, id);
  let text = shape.text;
  if (extras.hashtags.length > 0) text += ' ' + extras.hashtags.map((tag) => `#${tag}`).join(' ');
  if (extras.urls.length > 0) text += ' ' + extras.urls.join(' ');
  return {
    id,
    text,
    createdAt: new Date(slot.ms).toISOString(),
    lang,
    ...metricsOf(p, slot, rng, now),
    conversationId: shape.conversationId,
    inReplyToUserId: shape.inReplyToUserId,
    referencedTypes: shape.referencedTypes,
    ...extras,
  };
}
