// The previous collection strategy, emulated for comparison (the code it describes was replaced
// in commit 274dfe1): every poll of a handle read its timeline since the newest post kept, looked
// the account up by username (a billed user read), and read the metrics of all its posts of the
// last 48 hours again with GET /2/tweets?ids= (up to 100). Polls used the same cadence as today's
// (`nextPollDelayMs` of poll.ts, unchanged since): MONITOR_INTERVAL_SECONDS, half of it after new
// posts, up to 10x slower after quiet polls. There were no profile or metric rounds, and nothing
// paced the polls against the rate limits.
//
// It runs in memory (no database), through today's x-api source, against its own fake server.
import { nextPollDelayMs } from '../../apps/server/src/collector/poll.ts';

const METRICS_WINDOW_MS = 48 * 3_600_000;
const MAX_POLL_PAGES = 10;
/** The previous scheduler's batch per tick and job slots. */
const DUE_BATCH = 100;

/**
 * `handles` as the world built them; `known(handle)` the posts the strategy holds when it starts
 * (its backfill and earlier polls). Returns `step()`, which runs every poll due at the source's
 * clock, and counters.
 */
export function createPreviousStrategy({ source, handles, known, now, monitorIntervalMs, slots }) {
  const state = handles.map((handle, n) => {
    const posts = known(handle).map((post) => ({ id: post.id, createdMs: post.createdMs }));
    let newest = null;
    for (const post of posts)
      if (newest === null || BigInt(post.id) > BigInt(newest)) newest = post.id;
    return {
      handle,
      posts,
      ids: new Set(posts.map((post) => post.id)),
      newest,
      quietPolls: 0,
      // Spread over the first interval, as a long-running collector would have them.
      nextPollAt: now() + Math.floor((n / handles.length) * monitorIntervalMs),
    };
  });
  const counters = { polls: 0, errors: {} };

  async function poll(entry) {
    const at = now();
    counters.polls += 1;
    try {
      const fetched = [];
      let cursor;
      for (let pages = 0; pages < MAX_POLL_PAGES; pages++) {
        const page = await source.timeline({
          xUserId: entry.handle.xUserId,
          sinceId: entry.newest ?? undefined,
          cursor,
          maxResults: 100,
        });
        fetched.push(...page.tweets);
        if (!page.nextCursor) break;
        cursor = page.nextCursor;
      }
      let fresh = 0;
      for (const tweet of fetched) {
        if (entry.ids.has(tweet.id)) continue;
        entry.ids.add(tweet.id);
        entry.posts.push({ id: tweet.id, createdMs: Date.parse(tweet.createdAt) });
        fresh += 1;
        if (entry.newest === null || BigInt(tweet.id) > BigInt(entry.newest))
          entry.newest = tweet.id;
      }
      await source.lookupUser(entry.handle.username);
      const recent = entry.posts
        .filter((post) => post.createdMs >= at - METRICS_WINDOW_MS)
        .sort((a, b) => b.createdMs - a.createdMs)
        .slice(0, 100);
      if (recent.length > 0) await source.tweetsByIds(recent.map((post) => post.id));
      entry.quietPolls = fresh > 0 ? 0 : entry.quietPolls + 1;
      entry.nextPollAt = at + nextPollDelayMs(monitorIntervalMs, fresh, entry.quietPolls);
    } catch (error) {
      const kind = error?.kind ?? error?.name ?? 'error';
      counters.errors[kind] = (counters.errors[kind] ?? 0) + 1;
      entry.nextPollAt = at + monitorIntervalMs;
    }
  }

  return {
    counters,
    /** Runs the polls due now, DUE_BATCH at most, `slots` at a time (the old queue). */
    async step() {
      const at = now();
      const due = state
        .filter((entry) => entry.nextPollAt <= at)
        .sort((a, b) => a.nextPollAt - b.nextPollAt)
        .slice(0, DUE_BATCH);
      let next = 0;
      const worker = async () => {
        while (next < due.length) await poll(due[next++]);
      };
      await Promise.all(Array.from({ length: Math.min(slots, due.length) }, worker));
    },
  };
}
