/**
 * The demo source's timeline pages and tweets by id, generated on demand hour by hour from the
 * pure slots of demo-slots.ts.
 */
import {
  SourceError,
  type SourceTweet,
  type TimelinePage,
  type TimelineQuery,
} from '../../domain/tweet-source.js';
import {
  decodeCursor,
  encodeCursor,
  handleFromUserId,
  HOUR,
  snowflake,
  snowflakeMs,
  snowflakeSeq,
  snowflakeTag,
} from './demo-ids.js';
import {
  DEMO_RESERVED_HANDLES,
  existingPersona,
  handlesWithTag,
  persona,
  type Persona,
} from './demo-personas.js';
import { slotsOf, type Slot } from './demo-slots.js';
import { buildTweet } from './demo-tweet.js';

/**
 * A timeline page never spans more than half a day, like a slow real network that makes a
 * backfill take a while: with the default page delay a 15-day backfill of any account takes
 * 10-20 s, so its progress can be watched. Busy accounts fill their 100 tweets first.
 */
const PAGE_SPAN_MS = 12 * HOUR;

/** The instants and ids one page is read within. */
interface PageWindow {
  sinceId: bigint | null;
  /** The cursor's id: the page continues below it. */
  untilId: bigint | null;
  /** Exclusive upper bound (ms). */
  upper: number;
  /** Inclusive lower bound of the whole query (ms). */
  lower: number;
  /** Inclusive lower bound of this page (ms): older tweets are left for the next page. */
  floor: number;
}

function parseTime(value: string | undefined, name: string): number | null {
  if (value === undefined) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new Error(`Invalid ${name}: ${value}`);
  return ms;
}

/** The persona whose timeline is asked for; the reserved handles throw as X would. */
function timelinePersona(xUserId: string): Persona {
  const handle = handleFromUserId(xUserId);
  if (handle === null) throw new SourceError('not_found', `No such user id: ${xUserId}`);
  const p = existingPersona(handle);
  if (handle === DEMO_RESERVED_HANDLES.protected) {
    throw new SourceError(
      'protected',
      `Sorry, you are not authorized to see the user with id: [${xUserId}].`,
    );
  }
  if (handle === DEMO_RESERVED_HANDLES.rateLimited) {
    throw new SourceError('rate_limited', 'Too Many Requests', 60_000);
  }
  if (handle === DEMO_RESERVED_HANDLES.unavailable) {
    throw new SourceError('unavailable', 'Service Unavailable');
  }
  return p;
}

function pageWindow(query: TimelineQuery, p: Persona, at: number): PageWindow {
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
  return { sinceId, untilId, upper, lower, floor };
}

/** Whether a slot's id lies strictly between the page's sinceId and cursor. */
function withinIds(p: Persona, slot: Slot, { sinceId, untilId }: PageWindow): boolean {
  if (sinceId === null && untilId === null) return true;
  const id = snowflake(slot.ms, p.tag, slot.seq);
  if (sinceId !== null && id <= sinceId) return false;
  return !(untilId !== null && id >= untilId);
}

/** The page's slots, newest first, and one past it to know whether another page exists. */
function pickSlots(p: Persona, window: PageWindow, maxResults: number): Slot[] {
  const { upper, floor } = window;
  const picked: Slot[] = [];
  for (let bucket = Math.floor((upper - 1) / HOUR); bucket * HOUR + HOUR > floor; bucket--) {
    const slots = slotsOf(p, bucket);
    for (let i = slots.length - 1; i >= 0; i--) {
      const slot = slots[i]!;
      if (slot.ms >= upper || slot.ms < floor || !withinIds(p, slot, window)) continue;
      picked.push(slot);
      if (picked.length > maxResults) return picked;
    }
  }
  return picked;
}

/** The cursor of the next page: below its last tweet, or below the span this page covered. */
function nextCursorOf(p: Persona, last: Slot | undefined, more: boolean, window: PageWindow) {
  if (more && last) return encodeCursor(snowflake(last.ms, p.tag, last.seq));
  // The span ended before the window did: continue below it. Every tweet at or after
  // `floor` is on this page, and the smallest id at `floor` excludes exactly those.
  if (window.floor > window.lower) return encodeCursor(snowflake(window.floor, 0, 0));
  return null;
}

/** TweetSource.timeline: one page of at most 12 hours, newest first. */
export function readTimeline(query: TimelineQuery, now: () => number): TimelinePage {
  const p = timelinePersona(query.xUserId);
  const at = now();
  const maxResults = Math.min(100, Math.max(5, query.maxResults ?? 100));
  const window = pageWindow(query, p, at);
  const picked = pickSlots(p, window, maxResults);
  const more = picked.length > maxResults;
  if (more) picked.length = maxResults;
  const nextCursor = nextCursorOf(p, picked[picked.length - 1], more, window);
  return { tweets: picked.map((slot) => buildTweet(p, slot, at)), nextCursor };
}

/**
 * TweetSource.tweetsByIds: the first 100 ids that are tweets of a handle this process has seen
 * (a tweet id carries its handle's 10-bit tag, resolved through handlesWithTag).
 */
export function findTweets(ids: string[], at: number): SourceTweet[] {
  const found: SourceTweet[] = [];
  for (const raw of ids.slice(0, 100)) {
    if (!/^[0-9]{1,20}$/.test(raw)) continue;
    const tweet = findTweet(BigInt(raw), at);
    if (tweet) found.push(tweet);
  }
  return found;
}

function findTweet(id: bigint, at: number): SourceTweet | null {
  const ms = snowflakeMs(id);
  if (ms > at) return null;
  const seq = snowflakeSeq(id);
  for (const handle of handlesWithTag(snowflakeTag(id))) {
    const p = persona(handle);
    const slot = slotsOf(p, Math.floor(ms / HOUR))[seq];
    if (slot && slot.ms === ms) return buildTweet(p, slot, at);
  }
  return null;
}
