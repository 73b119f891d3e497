/**
 * The accounts of the demo source. Any handle matching X's rules exists except the reserved ones
 * in DEMO_RESERVED_HANDLES; its persona (how much it posts, when, to how many followers) is a pure
 * function of the lower-cased handle, so two processes agree on it.
 */
import { SourceError, type SourceProfile, type UsersById } from '../../domain/tweet-source.js';
import { DAY, demoUserId, handleFromUserId } from './demo-ids.js';
import { createRng, hashString, mix, type Rng } from './demo-random.js';
import { HASHTAGS } from './demo-vocabulary.js';

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

/** Account creation dates and follower growth are measured from here. */
const REFERENCE_MS = Date.UTC(2025, 0, 1);
const HANDLE_RE = /^[A-Za-z0-9_]{1,15}$/;

type PersonaKind = 'quiet' | 'typical' | 'prolific' | 'firehose';

export interface Persona {
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

const personas = new Map<string, Persona>();
/** Handle tag -> handles seen by this process (see handlesWithTag). */
const handlesByTag = new Map<number, Set<string>>();

/** The kind a handle's prefix asks for, else one drawn from its hash. */
function personaKind(handle: string, rng: Rng): PersonaKind {
  if (handle.startsWith('bench')) return 'firehose';
  if (handle.startsWith('prolific')) return 'prolific';
  if (handle.startsWith('typical')) return 'typical';
  if (handle.startsWith('quiet')) return 'quiet';
  const roll = rng.next();
  return roll < 0.3 ? 'quiet' : roll < 0.85 ? 'typical' : 'prolific';
}

/** Draws the persona of a (lower-case) handle. */
function drawPersona(handle: string): Persona {
  const seed = hashString(handle);
  const rng = createRng(mix(seed, 1));
  const kind = personaKind(handle, rng);
  const tweetsPerDay = {
    quiet: 0.5 + rng.next() * 1.5,
    typical: 5 + rng.next() * 15,
    prolific: 60 + rng.next() * 40,
    // Benchmarks need >= 50,000 tweets in a 30-day backfill.
    firehose: 2_000 + rng.next() * 200,
  }[kind];
  const followerScale = { quiet: 300, typical: 5_000, prolific: 80_000, firehose: 200_000 }[kind];
  return {
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
}

/** The persona of a handle (any case), remembered with its tag for handlesWithTag. */
export function persona(handleInput: string): Persona {
  const handle = handleInput.toLowerCase();
  const cached = personas.get(handle);
  if (cached) return cached;
  const p = drawPersona(handle);
  personas.set(handle, p);
  let tagged = handlesByTag.get(p.tag);
  if (!tagged) handlesByTag.set(p.tag, (tagged = new Set()));
  tagged.add(handle);
  return p;
}

/**
 * The handles this process has seen whose tweet ids carry `tag`. The 10-bit tag is a hash, so a
 * tweet id is resolved through the handles seen (lookupUser or timeline), which the collector
 * always calls first.
 */
export function handlesWithTag(tag: number): Iterable<string> {
  return handlesByTag.get(tag) ?? [];
}

/** The persona of an existing account; throws as X would for an invalid or reserved handle. */
export function existingPersona(username: string): Persona {
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
export function profileOf(p: Persona, at: number): SourceProfile {
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
 * Profiles by the ids this source issues (demoUserId): every id decodes back to its handle,
 * so a fresh process answers too. The reserved handles answer as lookupUser does.
 */
export function profilesByIds(ids: string[], at: number): UsersById {
  const distinct = [...new Set(ids)];
  if (distinct.length > 100) {
    throw new RangeError(`usersByIds takes at most 100 ids, got ${distinct.length}`);
  }
  const result: UsersById = { profiles: [], missing: [] };
  for (const xUserId of distinct) {
    const handle = handleFromUserId(xUserId);
    try {
      if (handle === null) throw new SourceError('not_found', `No such user id: ${xUserId}`);
      result.profiles.push(profileOf(existingPersona(handle), at));
    } catch (error) {
      if (!(error instanceof SourceError)) throw error;
      const kind = error.kind === 'suspended' ? 'suspended' : 'not_found';
      result.missing.push({ xUserId, kind });
    }
  }
  return result;
}
