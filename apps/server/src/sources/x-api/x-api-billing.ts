/**
 * Billing: X bills every post and user a response carries (pay-per-use, once per resource and
 * UTC day). Each 200's posts and users are told to `onBilledReads` with the handle they were read
 * for, so the cost meter sees exactly what X charges.
 */
import type { BilledRead, BilledReadsListener } from '../../domain/tweet-source.js';
import type { WireBody, WireTweet, WireUser } from './x-api-wire.js';

type Owners = Map<string, string | null>;

/** Who referenced each included post: the first post asked for that references it. */
function referrersOf(data: WireTweet[], owner: string | null): Owners {
  const referrer: Owners = new Map();
  for (const post of data) {
    for (const ref of post.referenced_tweets ?? []) {
      if (!referrer.has(ref.id)) referrer.set(ref.id, owner ?? post.author_id ?? null);
    }
  }
  return referrer;
}

/** A post asked for is its author's; an included post is its referrer's. */
function postOwnersOf(
  data: WireTweet[],
  included: WireTweet[],
  owner: string | null,
  referrer: Owners,
): Owners {
  const postOwner: Owners = new Map();
  for (const post of data) postOwner.set(post.id, owner ?? post.author_id ?? null);
  for (const post of included) {
    if (!postOwner.has(post.id)) postOwner.set(post.id, referrer.get(post.id) ?? null);
  }
  return postOwner;
}

/**
 * An included user is there as the author of an included post; else (`author_id` expansion)
 * as the author of a post asked for, which is its own read.
 */
function userOwnersOf(
  data: WireTweet[],
  included: WireTweet[],
  owner: string | null,
  referrer: Owners,
): Owners {
  const userOwner: Owners = new Map();
  for (const post of included) {
    if (post.author_id && !userOwner.has(post.author_id)) {
      userOwner.set(post.author_id, owner ?? referrer.get(post.id) ?? null);
    }
  }
  for (const post of data) {
    if (post.author_id && !userOwner.has(post.author_id)) {
      userOwner.set(post.author_id, owner ?? post.author_id);
    }
  }
  return userOwner;
}

/**
 * The posts and users of a tweet response, as X bills them: those in `data` and in the
 * includes, each once. `owner` set: every read is for that handle (a timeline). Unset: a post
 * is its author's, and an included post (and its author) is put on the author of the post that
 * referenced it (a lookup by ids, whose posts belong to many handles).
 */
export function postReads(body: WireBody<WireTweet[]>, owner: string | null): BilledRead[] {
  const data = body.data ?? [];
  const included = body.includes?.tweets ?? [];
  const referrer = referrersOf(data, owner);
  const postOwner = postOwnersOf(data, included, owner, referrer);
  const userOwner = userOwnersOf(data, included, owner, referrer);
  const reads = new Map<string, BilledRead>();
  for (const post of [...data, ...included]) {
    const ownerXUserId = owner ?? postOwner.get(post.id) ?? null;
    if (!reads.has(`post:${post.id}`)) {
      reads.set(`post:${post.id}`, { kind: 'post', id: post.id, ownerXUserId });
    }
  }
  for (const user of body.includes?.users ?? []) {
    const ownerXUserId = owner ?? userOwner.get(user.id) ?? null;
    if (!reads.has(`user:${user.id}`)) {
      reads.set(`user:${user.id}`, { kind: 'user', id: user.id, ownerXUserId });
    }
  }
  return [...reads.values()];
}

/** Users read by a user lookup: each is its own handle's read. */
export function userReads(users: WireUser[]): BilledRead[] {
  const ids = new Set(users.map((user) => user.id));
  return [...ids].map((id) => ({ kind: 'user', id, ownerXUserId: id }));
}

/** Tells the meter what a response was billed for; its failures are its own (it logs them). */
export async function reportBilledReads(
  listener: BilledReadsListener | undefined,
  reads: BilledRead[],
): Promise<void> {
  if (!listener || reads.length === 0) return;
  try {
    await listener(reads);
  } catch {
    // The read happened and X billed it: the data is returned all the same.
  }
}
