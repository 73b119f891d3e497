/**
 * The `demo` tweet source: deterministic synthetic accounts and tweets, so Perch runs with no
 * credentials. Every value is a pure function of the lower-cased handle, an hour bucket and (for
 * metrics and follower counts) the current instant, so two processes agree on every tweet and
 * nothing is ever stored: a page is generated on demand, hour by hour, and memory does not grow
 * with history.
 *
 * Ids:
 * - user id: the handle itself, read as a base-38 number (a-z, 0-9, _), in decimal. Reversible, so
 *   `timeline({ xUserId })` works in a fresh process. Up to 19 digits for handles of 12
 *   characters or fewer; longer handles give longer (still decimal) ids.
 * - tweet id: an X-style snowflake `(ms since 2010-11-04) << 22 | handleTag << 12 | sequence`, so
 *   ids grow with time, compare as BigInt, fit in 64 bits and encode their own creation time.
 *   The 10-bit handle tag is a hash; `tweetsByIds` resolves it through the handles this process
 *   has seen (lookupUser or timeline), which the collector always calls first.
 */
import {
  SourceError,
  type AccountChallenge,
  type RateBudget,
  type RateStatus,
  type ReferenceType,
  type SourceMedia,
  type SourceAccount,
  type SourceProfile,
  type SourceTweet,
  type TimelinePage,
  type TimelineQuery,
  type TweetSource,
  type UsersById,
} from '../domain/tweet-source.js';
import { createRng, hashString, mix, poisson, type Rng } from './demo-random.js';
import { HASHTAGS, LANGUAGES, LINK_DOMAINS, OTHER_ACCOUNTS, PHRASES } from './demo-vocabulary.js';
import { sleep } from '../lib/sleep.js';

/** Handles that simulate failures instead of returning data. */
export const DEMO_RESERVED_HANDLES = {
  /** lookupUser throws SourceError('not_found'). */
  notFound: 'nobody_demo',
  /** lookupUser throws SourceError('suspended'). */
  suspended: 'suspended_demo',
  /** lookupUser returns `protected: true`; timeline throws SourceError('protected'). */
  protected: 'protected_demo',
  /** timeline throws SourceError('rate_limited') with retryAfterMs = 60 s. */
  rateLimited: 'ratelimit_demo',
  /** timeline throws SourceError('unavailable'). */
  unavailable: 'outage_demo',
} as const;

export interface DemoSourceOptions {
  /** How long every call pretends the network takes (ms); DEMO_PAGE_DELAY_MS, 0 in tests. */
  pageDelayMs: number;
  /** Clock (epoch ms); tests inject one to move time. */
  now?: () => number;
  /**
   * DEMO_CHALLENGE_CODE: when set, the demo account is challenged when collection starts and
   * accepts exactly this code (so the super admin's challenge flow can be tried).
   */
  challengeCode?: string;
}

/** The challenge the demo account is asked when a challenge code is configured. */
export const DEMO_CHALLENGE: AccountChallenge = {
  type: 'email_code',
  details:
    'X sent a confirmation code to the email address of the collector account. Enter it to resume collection.',
};

/**
 * The demo account's session: challenged at sign-in until the configured code has been
 * accepted once, as a real session stays verified after a successful check.
 */
function demoAccount(challengeCode: string, pause: (signal?: AbortSignal) => Promise<void>) {
  let verified = false;
  const account: SourceAccount = {
    async challengeOnStart() {
      await pause();
      return verified ? null : DEMO_CHALLENGE;
    },
    async verify(code) {
      await pause();
      const accepted = code.trim() === challengeCode;
      if (accepted) verified = true;
      return accepted;
    },
  };
  return account;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/**
 * A timeline page never spans more than half a day, like a slow real network that makes a
 * backfill take a while: with the default page delay a 15-day backfill of any account takes
 * 10-20 s, so its progress can be watched. Busy accounts fill their 100 tweets first.
 */
const PAGE_SPAN_MS = 12 * HOUR;
/** X's snowflake epoch (2010-11-04T01:42:54.657Z). */
const SNOWFLAKE_EPOCH = 1_288_834_974_657;
/** Account creation dates and follower growth are measured from here. */
const REFERENCE_MS = Date.UTC(2025, 0, 1);
const HANDLE_RE = /^[A-Za-z0-9_]{1,15}$/;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789_';
/** Relative activity per local hour of day: quiet at night, peaks late morning and evening. */
const RHYTHM = [
  0.15, 0.1, 0.07, 0.05, 0.05, 0.08, 0.2, 0.45, 0.8, 1, 1.05, 1.1, 1.15, 1.1, 1.05, 1, 1, 1.05,
  1.15, 1.25, 1.3, 1.15, 0.8, 0.4,
];
const RHYTHM_SUM = RHYTHM.reduce((a, b) => a + b, 0);
/** Metrics approach their final value with this time constant (about 99% after 48 h). */
const METRIC_TAU_MS = 10 * HOUR;

type PersonaKind = 'quiet' | 'typical' | 'prolific' | 'firehose';

interface Persona {
  handle: string;
  seed: number;
  tag: number;
  xUserId: string;
  kind: PersonaKind;
  tweetsPerDay: number;
  /** Hours added to UTC to get the persona's local time. */
  tzOffset: number;
  createdMs: number;
  baseFollowers: number;
  /** Follower growth per day (fraction). */
  growth: number;
  following: number;
  lang: string;
  hashtags: string[];
}

/** One tweet's time and shape, before text and metrics are drawn. */
interface Slot {
  ms: number;
  seq: number;
  kind: 'original' | 'thread' | 'reply' | 'quote' | 'retweet';
  /** Thread root (for `thread` slots) and position in the thread. */
  root: Slot | null;
  position: number;
}

/** Encodes a (lower-case) handle as its reversible decimal user id. */
export function demoUserId(handle: string): string {
  let value = 0n;
  for (const char of handle.toLowerCase()) value = value * 38n + BigInt(ALPHABET.indexOf(char) + 1);
  return value.toString();
}

/** Decodes a demo user id back to its handle, or null when it is not one. */
function handleFromUserId(xUserId: string): string | null {
  if (!/^[1-9][0-9]{0,29}$/.test(xUserId)) return null;
  let value = BigInt(xUserId);
  let handle = '';
  while (value > 0n) {
    const digit = Number(value % 38n);
    if (digit === 0) return null;
    handle = ALPHABET[digit - 1] + handle;
    value /= 38n;
  }
  return handle.length <= 15 ? handle : null;
}

const personas = new Map<string, Persona>();
/** Handle tag -> handles seen by this process (see tweetsByIds). */
const handlesByTag = new Map<number, Set<string>>();

function persona(handleInput: string): Persona {
  const handle = handleInput.toLowerCase();
  const cached = personas.get(handle);
  if (cached) return cached;
  const seed = hashString(handle);
  const rng = createRng(mix(seed, 1));
  let kind: PersonaKind;
  if (handle.startsWith('bench')) kind = 'firehose';
  else if (handle.startsWith('prolific')) kind = 'prolific';
  else if (handle.startsWith('typical')) kind = 'typical';
  else if (handle.startsWith('quiet')) kind = 'quiet';
  else {
    const roll = rng.next();
    kind = roll < 0.3 ? 'quiet' : roll < 0.85 ? 'typical' : 'prolific';
  }
  const tweetsPerDay = {
    quiet: 0.5 + rng.next() * 1.5,
    typical: 5 + rng.next() * 15,
    prolific: 60 + rng.next() * 40,
    // Benchmarks need >= 50,000 tweets in a 30-day backfill.
    firehose: 2_000 + rng.next() * 200,
  }[kind];
  const followerScale = { quiet: 300, typical: 5_000, prolific: 80_000, firehose: 200_000 }[kind];
  const p: Persona = {
    handle,
    seed,
    tag: seed & 0x3ff,
    xUserId: demoUserId(handle),
    kind,
    tweetsPerDay,
    tzOffset: rng.int(-8, 9),
    createdMs: REFERENCE_MS - rng.int(365, 12 * 365) * DAY - rng.int(0, DAY),
    baseFollowers: Math.round(followerScale * Math.exp(rng.normal() * 0.8)),
    growth: 0.0005 + rng.next() * 0.0025,
    following: rng.int(40, 2_000),
    lang: rng.next() < 0.85 ? 'en' : rng.pick(['es', 'fr', 'de', 'ja', 'pt']),
    hashtags: Array.from({ length: 6 }, () => rng.pick(HASHTAGS)),
  };
  personas.set(handle, p);
  let tagged = handlesByTag.get(p.tag);
  if (!tagged) handlesByTag.set(p.tag, (tagged = new Set()));
  tagged.add(handle);
  return p;
}

/**
 * The last few hours generated. Paging stops mid-hour and the next page starts there, so the
 * boundary hour would otherwise be generated twice. Slots are pure, so caching is safe.
 */
const recentSlots = new Map<string, Slot[]>();
const RECENT_SLOTS_MAX = 16;

/** The tweets of one persona in one UTC hour, oldest first (pure function of both). */
function slotsOf(p: Persona, bucket: number): Slot[] {
  const key = `${p.handle}:${bucket}`;
  const cached = recentSlots.get(key);
  if (cached) return cached;
  const slots = generateSlots(p, bucket);
  if (recentSlots.size >= RECENT_SLOTS_MAX) {
    recentSlots.delete(recentSlots.keys().next().value as string);
  }
  recentSlots.set(key, slots);
  return slots;
}

function generateSlots(p: Persona, bucket: number): Slot[] {
  const start = bucket * HOUR;
  if (start + HOUR <= p.createdMs) return [];
  const localHour = (((bucket + p.tzOffset) % 24) + 24) % 24;
  const day = Math.floor((bucket + p.tzOffset) / 24);
  // Day-to-day variation (log-normal) and quieter weekends (day 0 = Thursday 1970-01-01).
  const dayRng = createRng(mix(p.seed, day, 7));
  const weekday = (day + 4) % 7;
  const dayFactor =
    Math.exp(dayRng.normal() * 0.35 - 0.06) * (weekday === 0 || weekday === 6 ? 0.75 : 1);
  const rng = createRng(mix(p.seed, bucket));
  const count = poisson(rng, ((p.tweetsPerDay * RHYTHM[localHour]!) / RHYTHM_SUM) * dayFactor);
  const slots: Slot[] = [];
  for (let i = 0; i < count; i++) {
    const ms = start + Math.floor(rng.next() * HOUR);
    if (ms < p.createdMs) continue;
    const roll = rng.next();
    const kind =
      roll < 0.14 ? 'retweet' : roll < 0.24 ? 'quote' : roll < 0.4 ? 'reply' : 'original';
    const slot: Slot = { ms, seq: 0, kind, root: null, position: 0 };
    slots.push(slot);
    // Some originals start a thread: self-replies a few minutes apart, within this hour.
    if (kind === 'original' && rng.next() < 0.09) {
      const parts = rng.int(1, 4);
      let at = ms;
      for (let k = 1; k <= parts; k++) {
        at += rng.int(20_000, 300_000);
        if (at >= start + HOUR) break;
        slots.push({ ms: at, seq: 0, kind: 'thread', root: slot, position: k });
      }
    }
  }
  slots.sort((a, b) => a.ms - b.ms);
  if (slots.length > 4096) slots.length = 4096; // the sequence field has 12 bits
  slots.forEach((slot, index) => (slot.seq = index));
  return slots;
}

function snowflake(ms: number, tag: number, seq: number): bigint {
  return (BigInt(ms - SNOWFLAKE_EPOCH) << 22n) | BigInt((tag << 12) | seq);
}

function snowflakeMs(id: bigint): number {
  return Number(id >> 22n) + SNOWFLAKE_EPOCH;
}

/** Share of a metric's final value reached `ageMs` after posting. */
function saturation(ageMs: number): number {
  return ageMs <= 0 ? 0 : 1 - Math.exp(-ageMs / METRIC_TAU_MS);
}

function casing(rng: Rng, tag: string): string {
  const roll = rng.next();
  return roll < 0.7 ? tag : roll < 0.9 ? tag.toLowerCase() : tag.toUpperCase();
}

/** Draws the text, entities and metrics of one slot as seen at `now`. */
function buildTweet(p: Persona, slot: Slot, now: number): SourceTweet {
  const id = snowflake(slot.ms, p.tag, slot.seq).toString();
  const rng = createRng(mix(p.seed, slot.ms, slot.seq, 3));
  const lang = rng.next() < 0.8 ? p.lang : rng.pick(LANGUAGES);
  const phrases = PHRASES[lang] ?? PHRASES.en!;
  let text = rng.pick(phrases);
  const hashtags: string[] = [];
  const urls: string[] = [];
  const media: SourceMedia[] = [];
  const referencedTypes: ReferenceType[] = [];
  let conversationId = id;
  let inReplyToUserId: string | null = null;
  const other = rng.pick(OTHER_ACCOUNTS);

  if (slot.kind === 'retweet') {
    text = `RT @${other}: ${text}`;
    referencedTypes.push('retweeted');
  } else {
    if (slot.kind === 'thread' && slot.root) {
      text = `${slot.position + 1}/ ${text}`;
      conversationId = snowflake(slot.root.ms, p.tag, slot.root.seq).toString();
      inReplyToUserId = p.xUserId;
      referencedTypes.push('replied_to');
    } else if (slot.kind === 'reply') {
      text = `@${other} ${text}`;
      conversationId = snowflake(
        slot.ms - rng.int(60_000, 6 * HOUR),
        hashString(other) & 0x3ff,
        0,
      ).toString();
      inReplyToUserId = demoUserId(other);
      referencedTypes.push('replied_to');
    } else if (slot.kind === 'quote') {
      referencedTypes.push('quoted');
    }
    const tagRoll = rng.next();
    const tagCount = tagRoll < 0.55 ? 0 : tagRoll < 0.88 ? 1 : 2;
    for (let k = 0; k < tagCount; k++) hashtags.push(casing(rng, rng.pick(p.hashtags)));
    if (rng.next() < 0.18) urls.push(`${rng.pick(LINK_DOMAINS)}/${id.slice(-8)}`);
    const mediaRoll = rng.next();
    const seedUrl = (n: number) =>
      `https://picsum.photos/seed/${id}${n > 0 ? `-${n}` : ''}/800/450`;
    if (mediaRoll < 0.16) {
      const photos = rng.next() < 0.7 ? 1 : rng.int(2, 4);
      for (let n = 0; n < photos; n++)
        media.push({ type: 'photo', url: seedUrl(n), previewUrl: null });
    } else if (mediaRoll < 0.21) {
      media.push({ type: 'video', url: null, previewUrl: seedUrl(0) });
    } else if (mediaRoll < 0.25) {
      media.push({ type: 'animated_gif', url: null, previewUrl: seedUrl(0) });
    }
    if (hashtags.length > 0) text += ' ' + hashtags.map((tag) => `#${tag}`).join(' ');
    if (urls.length > 0) text += ' ' + urls.join(' ');
  }

  // Heavy-tailed final engagement (log-normal around a persona-sized median), reached gradually.
  const share = saturation(now - slot.ms);
  const median = Math.max(0.5, Math.sqrt(p.baseFollowers) / 4);
  const finalLikes = median * Math.exp(rng.normal() * 1.3);
  const grow = (value: number) => Math.floor(value * share);
  const isRetweet = slot.kind === 'retweet';
  return {
    id,
    text,
    createdAt: new Date(slot.ms).toISOString(),
    lang,
    likeCount: isRetweet ? 0 : grow(finalLikes),
    retweetCount: grow(finalLikes * 0.15 * Math.exp(rng.normal() * 0.5)),
    replyCount: isRetweet ? 0 : grow(finalLikes * 0.05 * Math.exp(rng.normal() * 0.5)),
    quoteCount: isRetweet ? 0 : grow(finalLikes * 0.02 * Math.exp(rng.normal() * 0.5)),
    impressionCount: isRetweet ? 0 : grow(finalLikes * rng.int(40, 120) + p.baseFollowers * 0.05),
    conversationId,
    inReplyToUserId,
    referencedTypes,
    hashtags,
    urls,
    media,
  };
}

function encodeCursor(id: bigint): string {
  return Buffer.from(`demo:${id}`).toString('base64url');
}

function decodeCursor(cursor: string): bigint {
  const match = /^demo:([0-9]{1,20})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match?.[1]) throw new Error(`Invalid demo cursor: ${cursor}`);
  return BigInt(match[1]);
}

function parseTime(value: string | undefined, name: string): number | null {
  if (value === undefined) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new Error(`Invalid ${name}: ${value}`);
  return ms;
}

function checkHandle(username: string): Persona {
  if (!HANDLE_RE.test(username)) throw new SourceError('not_found', `No such account: ${username}`);
  const handle = username.toLowerCase();
  if (handle === DEMO_RESERVED_HANDLES.notFound) {
    throw new SourceError('not_found', `Could not find user with username: [${username}].`);
  }
  if (handle === DEMO_RESERVED_HANDLES.suspended) {
    throw new SourceError('suspended', `User has been suspended: [${username}].`);
  }
  return persona(handle);
}

/** A persona's profile as seen at `at` (followers grow with time). */
function profileOf(p: Persona, at: number): SourceProfile {
  const days = Math.max(0, (at - REFERENCE_MS) / DAY);
  const ageDays = Math.max(0, (at - p.createdMs) / DAY);
  const tweetCount = Math.floor(p.tweetsPerDay * ageDays);
  return {
    xUserId: p.xUserId,
    username: p.handle,
    name: p.handle
      .split('_')
      .filter(Boolean)
      .map((word) => word[0]!.toUpperCase() + word.slice(1))
      .join(' '),
    followersCount: Math.floor(p.baseFollowers * Math.exp(p.growth * days)),
    followingCount: p.following,
    tweetCount,
    likeCount: Math.floor(tweetCount * 2.5),
    protected: p.handle === DEMO_RESERVED_HANDLES.protected,
  };
}

/**
 * Creates the demo source. Any handle matching X's rules exists except the reserved ones in
 * DEMO_RESERVED_HANDLES; its persona (quiet ~0.5-2 tweets/day, typical ~5-20, prolific ~60-100)
 * comes from the handle's hash. Handles starting with `quiet`, `typical` or `prolific` always get
 * that persona, and handles starting with `bench` post about 2,000 tweets a day so benchmarks
 * get >= 50,000 tweets in a 30-day backfill.
 */
export function createDemoSource(options: DemoSourceOptions): TweetSource {
  const now = options.now ?? Date.now;
  const pause = (signal?: AbortSignal) => sleep(options.pageDelayMs, signal);

  return {
    name: 'demo',
    // Synthetic history has no depth limit.
    timelineDepth: null,
    ...(options.challengeCode ? { account: demoAccount(options.challengeCode, pause) } : {}),

    async lookupUser(username, signal): Promise<SourceProfile> {
      await pause(signal);
      return profileOf(checkHandle(username), now());
    },

    /**
     * Profiles by the ids this source issues (demoUserId): every id decodes back to its handle,
     * so a fresh process answers too. The reserved handles answer as lookupUser does.
     */
    async usersByIds(ids, signal): Promise<UsersById> {
      await pause(signal);
      const distinct = [...new Set(ids)];
      if (distinct.length > 100) {
        throw new RangeError(`usersByIds takes at most 100 ids, got ${distinct.length}`);
      }
      const at = now();
      const result: UsersById = { profiles: [], missing: [] };
      for (const xUserId of distinct) {
        const handle = handleFromUserId(xUserId);
        try {
          if (handle === null) throw new SourceError('not_found', `No such user id: ${xUserId}`);
          result.profiles.push(profileOf(checkHandle(handle), at));
        } catch (error) {
          if (!(error instanceof SourceError)) throw error;
          const kind = error.kind === 'suspended' ? 'suspended' : 'not_found';
          result.missing.push({ xUserId, kind });
        }
      }
      return result;
    },

    async timeline(query: TimelineQuery, signal): Promise<TimelinePage> {
      await pause(signal);
      const handle = handleFromUserId(query.xUserId);
      if (handle === null) throw new SourceError('not_found', `No such user id: ${query.xUserId}`);
      const p = checkHandle(handle);
      if (handle === DEMO_RESERVED_HANDLES.protected) {
        throw new SourceError(
          'protected',
          `Sorry, you are not authorized to see the user with id: [${query.xUserId}].`,
        );
      }
      if (handle === DEMO_RESERVED_HANDLES.rateLimited) {
        throw new SourceError('rate_limited', 'Too Many Requests', 60_000);
      }
      if (handle === DEMO_RESERVED_HANDLES.unavailable) {
        throw new SourceError('unavailable', 'Service Unavailable');
      }
      const at = now();
      const maxResults = Math.min(100, Math.max(5, query.maxResults ?? 100));
      const sinceId = query.sinceId !== undefined ? BigInt(query.sinceId) : null;
      const untilId = query.cursor !== undefined ? decodeCursor(query.cursor) : null;
      // Exclusive upper bound in ms: the end of the window, never after now.
      let upper = Math.min(parseTime(query.endTime, 'endTime') ?? at, at + 1);
      if (untilId !== null) upper = Math.min(upper, snowflakeMs(untilId) + 1);
      // Inclusive lower bound: start of the window, the sinceId's instant, the account's birth.
      const lower = Math.max(
        parseTime(query.startTime, 'startTime') ?? p.createdMs,
        sinceId !== null ? snowflakeMs(sinceId) : p.createdMs,
        p.createdMs,
      );
      // This page covers [floor, upper); older tweets are left for the next page.
      const floor = Math.max(lower, upper - PAGE_SPAN_MS);
      // Look one past the page to know whether another page exists.
      const picked: Slot[] = [];
      outer: for (
        let bucket = Math.floor((upper - 1) / HOUR);
        bucket * HOUR + HOUR > floor;
        bucket--
      ) {
        const slots = slotsOf(p, bucket);
        for (let i = slots.length - 1; i >= 0; i--) {
          const slot = slots[i]!;
          if (slot.ms >= upper || slot.ms < floor) continue;
          if (sinceId !== null || untilId !== null) {
            const id = snowflake(slot.ms, p.tag, slot.seq);
            if (sinceId !== null && id <= sinceId) continue;
            if (untilId !== null && id >= untilId) continue;
          }
          picked.push(slot);
          if (picked.length > maxResults) break outer;
        }
      }
      const more = picked.length > maxResults;
      if (more) picked.length = maxResults;
      const last = picked[picked.length - 1];
      let nextCursor: string | null = null;
      if (more && last) nextCursor = encodeCursor(snowflake(last.ms, p.tag, last.seq));
      // The span ended before the window did: continue below it. Every tweet at or after
      // `floor` is on this page, and the smallest id at `floor` excludes exactly those.
      else if (floor > lower) nextCursor = encodeCursor(snowflake(floor, 0, 0));
      return { tweets: picked.map((slot) => buildTweet(p, slot, at)), nextCursor };
    },

    async tweetsByIds(ids, signal): Promise<SourceTweet[]> {
      await pause(signal);
      const at = now();
      const found: SourceTweet[] = [];
      for (const raw of ids.slice(0, 100)) {
        if (!/^[0-9]{1,20}$/.test(raw)) continue;
        const id = BigInt(raw);
        const ms = snowflakeMs(id);
        if (ms > at) continue;
        const tag = Number((id >> 12n) & 0x3ffn);
        const seq = Number(id & 0xfffn);
        for (const handle of handlesByTag.get(tag) ?? []) {
          const p = persona(handle);
          const slot = slotsOf(p, Math.floor(ms / HOUR))[seq];
          if (slot && slot.ms === ms) {
            found.push(buildTweet(p, slot, at));
            break;
          }
        }
      }
      return found;
    },

    rateBudget(): RateBudget {
      return { limit: null, remaining: null, resetAt: null };
    },

    rateStatus(): RateStatus {
      return { endpoints: [], appDay: null };
    },
  };
}
