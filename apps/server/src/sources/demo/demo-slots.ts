/**
 * When a demo persona posts: the tweets of one UTC hour, a pure function of the persona and the
 * hour, so nothing is stored and memory does not grow with history.
 */
import { HOUR } from './demo-ids.js';
import type { Persona } from './demo-personas.js';
import { createRng, mix, poisson, type Rng } from './demo-random.js';

/** Relative activity per local hour of day: quiet at night, peaks late morning and evening. */
const RHYTHM = [
  0.15, 0.1, 0.07, 0.05, 0.05, 0.08, 0.2, 0.45, 0.8, 1, 1.05, 1.1, 1.15, 1.1, 1.05, 1, 1, 1.05,
  1.15, 1.25, 1.3, 1.15, 0.8, 0.4,
];
const RHYTHM_SUM = RHYTHM.reduce((a, b) => a + b, 0);
/** The sequence field of a snowflake has 12 bits. */
const MAX_SLOTS_PER_HOUR = 4096;

/** One tweet's time and shape, before text and metrics are drawn. */
export interface Slot {
  ms: number;
  seq: number;
  kind: 'original' | 'thread' | 'reply' | 'quote' | 'retweet';
  /** Thread root (for `thread` slots) and position in the thread. */
  root: Slot | null;
  position: number;
}

/**
 * The last few hours generated. Paging stops mid-hour and the next page starts there, so the
 * boundary hour would otherwise be generated twice. Slots are pure, so caching is safe.
 */
const recentSlots = new Map<string, Slot[]>();
const RECENT_SLOTS_MAX = 16;

/** The tweets of one persona in one UTC hour, oldest first (pure function of both). */
export function slotsOf(p: Persona, bucket: number): Slot[] {
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

/** The expected number of tweets in an hour: the persona's rate, its rhythm and the day's mood. */
function expectedTweets(p: Persona, bucket: number): number {
  const localHour = (((bucket + p.tzOffset) % 24) + 24) % 24;
  const day = Math.floor((bucket + p.tzOffset) / 24);
  // Day-to-day variation (log-normal) and quieter weekends (day 0 = Thursday 1970-01-01).
  const dayRng = createRng(mix(p.seed, day, 7));
  const weekday = (day + 4) % 7;
  const dayFactor =
    Math.exp(dayRng.normal() * 0.35 - 0.06) * (weekday === 0 || weekday === 6 ? 0.75 : 1);
  return ((p.tweetsPerDay * RHYTHM[localHour]!) / RHYTHM_SUM) * dayFactor;
}

/** Some originals start a thread: self-replies a few minutes apart, within the root's hour. */
function threadOf(rng: Rng, root: Slot, hourEnd: number): Slot[] {
  const parts = rng.int(1, 4);
  const replies: Slot[] = [];
  let at = root.ms;
  for (let k = 1; k <= parts; k++) {
    at += rng.int(20_000, 300_000);
    if (at >= hourEnd) break;
    replies.push({ ms: at, seq: 0, kind: 'thread', root, position: k });
  }
  return replies;
}

function generateSlots(p: Persona, bucket: number): Slot[] {
  const start = bucket * HOUR;
  if (start + HOUR <= p.createdMs) return [];
  const rng = createRng(mix(p.seed, bucket));
  const count = poisson(rng, expectedTweets(p, bucket));
  const slots: Slot[] = [];
  for (let i = 0; i < count; i++) {
    const ms = start + Math.floor(rng.next() * HOUR);
    if (ms < p.createdMs) continue;
    const roll = rng.next();
    const kind =
      roll < 0.14 ? 'retweet' : roll < 0.24 ? 'quote' : roll < 0.4 ? 'reply' : 'original';
    const slot: Slot = { ms, seq: 0, kind, root: null, position: 0 };
    slots.push(slot);
    if (kind === 'original' && rng.next() < 0.09) slots.push(...threadOf(rng, slot, start + HOUR));
  }
  slots.sort((a, b) => a.ms - b.ms);
  if (slots.length > MAX_SLOTS_PER_HOUR) slots.length = MAX_SLOTS_PER_HOUR;
  slots.forEach((slot, index) => (slot.seq = index));
  return slots;
}
