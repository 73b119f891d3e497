// Reading what the Telegram and Discord fakes received: which post a message is about, how many
// (target, post) pairs came more than once, and the busiest stretch of arrivals; and what the
// server's outbox holds.

/** The post id in a message's link (…/status/<id>), or undefined. */
export const tweetIdIn = (text) => /status\/(\d+)/.exec(text ?? '')?.[1];

/** The post a Telegram message (as the fake keeps it) links to. */
export const telegramTweetId = (message) => tweetIdIn(message.raw);

/** The post a Discord message (as the fake keeps it) links to in its embed. */
export const discordTweetId = (message) => tweetIdIn(String(message.embeds[0]?.url ?? ''));

/** A Discord request that opens a DM channel (not one that sends). */
export const isDmOpen = (request) => request.path.endsWith('/users/@me/channels');

/** Messages, distinct (target, post) pairs among them, and messages beyond a pair's first. */
export function deliveryPairs(messages, targetOf, tweetOf) {
  const seen = new Set();
  let doubled = 0;
  for (const message of messages) {
    const key = `${targetOf(message)}:${tweetOf(message)}`;
    if (seen.has(key)) doubled += 1;
    seen.add(key);
  }
  return { messages: messages.length, uniquePairs: seen.size, duplicates: doubled };
}

/** Most of `items` (each with `at`, ms) in any `windowMs`: a sliding window over arrivals. */
export function busiestWindow(items, windowMs) {
  const times = items.map((m) => m.at).sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i] - times[j] >= windowMs) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

/** The rows of the outbox in `db` (a Kysely database of the server), counted by channel and status. */
export const outboxCounts = (db) =>
  db
    .selectFrom('notification_outbox')
    .select(['channel', 'status'])
    .select((eb) => eb.fn.countAll().as('count'))
    .groupBy(['channel', 'status'])
    .execute();
