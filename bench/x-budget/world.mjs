// The simulated accounts of the x-budget bench: handles of three posting rates, their posts with
// X-style ids over the whole run, and a feeder that hands each post to a fake X server only once
// the virtual clock has passed its creation time (the fake itself would serve posts "from the
// future": it does not compare created_at with its clock).

export const DAY_MS = 86_400_000;

/** Posting classes: each handle posts exactly `perDay` times every UTC day, at random times. */
export const CLASSES = [
  { name: 'quiet', count: 600, perDay: 1 },
  { name: 'typical', count: 300, perDay: 10 },
  { name: 'active', count: 100, perDay: 50 },
];

const TWITTER_EPOCH = 1_288_834_974_657n;

/** A small seeded PRNG (mulberry32), so every run posts at the same instants. */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export const utcDay = (ms) => new Date(ms).toISOString().slice(0, 10);

/**
 * The handles and their posts from `fromDay` to `toDay` (whole UTC days relative to `originMs`,
 * a 00:00 UTC; toDay excluded). Ids are X snowflakes (time, then the handle's index as worker
 * bits), so a later post always has a larger id, as `since_id` needs.
 */
export function buildWorld({ originMs, fromDay, toDay, seed = 20261125 }) {
  const handles = [];
  for (const cls of CLASSES) {
    for (let i = 0; i < cls.count; i++) {
      const index = handles.length;
      const handle = {
        index,
        cls: cls.name,
        perDay: cls.perDay,
        username: `${cls.name}_${String(i).padStart(4, '0')}`,
        xUserId: String(3_000_000_000 + index),
        posts: [],
      };
      let seq = 0n;
      for (let day = fromDay; day < toDay; day++) {
        const start = originMs + day * DAY_MS;
        // Seeded per handle and day, so a day's posts are the same however many days run.
        const rand = random(seed + index * 4_096 + (day + 2_048));
        const times = Array.from({ length: cls.perDay }, () => start + Math.floor(rand() * DAY_MS));
        for (const createdMs of times.sort((a, b) => a - b)) {
          seq = (seq + 1n) % 4096n;
          const id =
            ((BigInt(createdMs) - TWITTER_EPOCH) << 22n) | (BigInt(index % 1024) << 12n) | seq;
          handle.posts.push({ id: String(id), createdMs });
        }
      }
      handles.push(handle);
    }
  }
  return handles;
}

/** A post in X's wire format: an original post with text and zeroed public metrics. */
function wire(post) {
  return {
    id: post.id,
    text: `Post ${post.id} of the x-budget bench`,
    created_at: new Date(post.createdMs).toISOString(),
    lang: 'en',
    conversation_id: post.id,
    public_metrics: {
      retweet_count: 0,
      reply_count: 0,
      like_count: 0,
      quote_count: 0,
      bookmark_count: 0,
      impression_count: 0,
    },
  };
}

/**
 * Registers the handles' accounts on a fake and returns `releaseUntil(ms)`, which adds every
 * post created at or before `ms` that the fake does not have yet.
 */
export function populate(fake, handles) {
  for (const handle of handles) {
    fake.addUser({ username: handle.username, id: handle.xUserId, tweetCount: 0 });
  }
  const queue = handles
    .flatMap((handle) => handle.posts.map((post) => ({ handle, post })))
    .sort((a, b) => a.post.createdMs - b.post.createdMs);
  let next = 0;
  return function releaseUntil(ms) {
    if (next >= queue.length || queue[next].post.createdMs > ms) return 0;
    const byHandle = new Map();
    const first = next;
    while (next < queue.length && queue[next].post.createdMs <= ms) {
      const { handle, post } = queue[next++];
      const list = byHandle.get(handle) ?? [];
      list.push(wire(post));
      byHandle.set(handle, list);
    }
    for (const [handle, posts] of byHandle) fake.addTweets(handle.xUserId, posts);
    return next - first;
  };
}
