// What the x-budget bench counts: requests per endpoint per 15-minute window, as the fake X
// server received them, and billed reads per handle and UTC day, as the source reported them.
import { utcDay } from './world.mjs';

export const WINDOW_MS = 15 * 60_000;
export const ENDPOINTS = ['users/tweets', 'tweets', 'users', 'users/by/username'];

/**
 * Requests per endpoint in 15-minute windows aligned to `originMs` (00:00 UTC, so windows start
 * at :00, :15, :30 and :45), and every status the fake answered. `drain(fake)` takes the fake's
 * request log and empties it, so a long run does not keep millions of entries.
 */
export function createRequestTally(originMs) {
  /** window index -> endpoint -> requests */
  const windows = new Map();
  /** endpoint -> status -> count */
  const statuses = new Map();
  const rateLimited = [];
  return {
    drain(fake) {
      for (const request of fake.requests) {
        if (!request.endpoint) continue;
        const index = Math.floor((request.at - originMs) / WINDOW_MS);
        let counts = windows.get(index);
        if (!counts) {
          counts = Object.fromEntries(ENDPOINTS.map((endpoint) => [endpoint, 0]));
          windows.set(index, counts);
        }
        counts[request.endpoint] += 1;
        const byStatus = statuses.get(request.endpoint) ?? {};
        byStatus[request.status] = (byStatus[request.status] ?? 0) + 1;
        statuses.set(request.endpoint, byStatus);
        if (request.status === 429) {
          rateLimited.push({ endpoint: request.endpoint, at: new Date(request.at).toISOString() });
        }
      }
      fake.requests.length = 0;
    },
    /**
     * Max and mean requests per window of each endpoint over the windows in [fromMs, toMs)
     * (windows with no request count as 0), times `scale`; with `limits`, also the windows over
     * an endpoint's limit and the requests beyond it in all.
     */
    stats(fromMs, toMs, scale = 1, limits = null) {
      const first = Math.floor((fromMs - originMs) / WINDOW_MS);
      const last = Math.ceil((toMs - originMs) / WINDOW_MS);
      const result = {};
      for (const endpoint of ENDPOINTS) {
        let max = 0;
        let sum = 0;
        let windowsOver = 0;
        let overLimit = 0;
        for (let i = first; i < last; i++) {
          const n = (windows.get(i)?.[endpoint] ?? 0) * scale;
          max = Math.max(max, n);
          sum += n;
          if (limits && n > limits[endpoint]) {
            windowsOver += 1;
            overLimit += n - limits[endpoint];
          }
        }
        result[endpoint] = {
          max,
          mean: sum / Math.max(1, last - first),
          total: sum,
          ...(limits ? { windowsOver, overLimit } : {}),
        };
      }
      return result;
    },
    statuses: () => Object.fromEntries(statuses),
    rateLimited: () => rateLimited,
  };
}

/**
 * Billed reads as X bills them: each post and user once per UTC day, put on the handle it was
 * read for (the source's `ownerXUserId`). `record` is chained in front of the cost meter.
 */
export function createBillingTally(now) {
  const seen = new Set();
  /** owner -> day -> { post, user } */
  const byOwner = new Map();
  /** day -> { post, user } */
  const byDay = new Map();
  return {
    record(reads) {
      const day = utcDay(now());
      for (const read of reads) {
        const key = `${day}|${read.kind}|${read.id}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const owner = read.ownerXUserId ?? 'unknown';
        let days = byOwner.get(owner);
        if (!days) byOwner.set(owner, (days = new Map()));
        const counts = days.get(day) ?? { post: 0, user: 0 };
        counts[read.kind] += 1;
        days.set(day, counts);
        const total = byDay.get(day) ?? { post: 0, user: 0 };
        total[read.kind] += 1;
        byDay.set(day, total);
      }
    },
    of(owner, day) {
      return byOwner.get(owner)?.get(day) ?? { post: 0, user: 0 };
    },
    day: (day) => byDay.get(day) ?? { post: 0, user: 0 },
    owners: () => [...byOwner.keys()],
  };
}
