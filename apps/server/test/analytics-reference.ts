/**
 * docs/analytics.md written out a second time, as plainly as possible, to check the API against:
 * it reads the tweets as GET /handles/{handle}/tweets lists them and the snapshot rows as
 * stored, and does every day/hour bucket with Intl per tweet. It shares no code with the engine
 * (apps/server/src/analytics), so a mistake there cannot hide here.
 */
import type { Tweet } from '@perch/shared';

const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const STATUS_URL = /^https?:\/\/(?:www\.|mobile\.)?(?:x|twitter)\.com\/[^/]+\/status(?:es)?\/\d+/i;
const HOUR_MS = 3_600_000;

export interface ReferenceInput {
  tweets: Tweet[];
  /** The handle's X user id (threads). */
  xUserId: string | null;
  profileSnapshots: { taken_at: string; followers: number }[];
  metricSnapshots: {
    tweet_id: string;
    taken_at: string;
    likes: number;
    retweets: number;
    replies: number;
    quotes: number;
  }[];
  window: { start: string; end: string };
  timezone: string;
}

interface Local {
  date: string;
  weekday: number;
  hour: number;
}

function local(iso: string, timezone: string): Local {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      hourCycle: 'h23',
      weekday: 'long',
    })
      .formatToParts(new Date(iso))
      .map((part) => [part.type, part.value]),
  );
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    weekday: WEEKDAYS.indexOf(parts.weekday ?? ''),
    hour: Number(parts.hour),
  };
}

const engagementOf = (t: Tweet) => t.like_count + t.retweet_count + t.reply_count + t.quote_count;
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const mean = (values: number[]) => (values.length === 0 ? 0 : sum(values) / values.length);

function contentType(t: Tweet): 'video' | 'image' | 'link' | 'text' {
  if (t.media.some((m) => m.type === 'video' || m.type === 'animated_gif')) return 'video';
  if (t.media.some((m) => m.type === 'photo')) return 'image';
  if (t.urls.some((url) => !STATUS_URL.test(url))) return 'link';
  return 'text';
}

function nextDate(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** Every block of docs/analytics.md (the parts the API tests compare). */
export function referenceAnalytics(input: ReferenceInput) {
  const { timezone } = input;
  const start = Date.parse(input.window.start);
  const end = Date.parse(input.window.end);
  const inWindow = input.tweets.filter((t) => {
    const at = Date.parse(t.created_at);
    return at >= start && at <= end;
  });
  const posts = inWindow.filter((t) => !t.is_retweet);
  const retweets = inWindow.filter((t) => t.is_retweet);
  const n = posts.length;

  const latest = [...input.profileSnapshots].sort(
    (a, b) => Date.parse(a.taken_at) - Date.parse(b.taken_at),
  )[input.profileSnapshots.length - 1];
  const followers = latest ? latest.followers : null;
  const perFollower = (value: number) => (followers ? (value / followers) * 100 : null);

  const likes = sum(posts.map((t) => t.like_count));
  const rts = sum(posts.map((t) => t.retweet_count));
  const replies = sum(posts.map((t) => t.reply_count));
  const quotes = sum(posts.map((t) => t.quote_count));
  const engagement = likes + rts + replies + quotes;
  const avgEngagement = n ? engagement / n : 0;

  // Posting patterns.
  const heatmap = WEEKDAYS.map(() => new Array<number>(24).fill(0));
  const days = new Array<number>(7).fill(0);
  const hours = new Array<number>(24).fill(0);
  for (const t of posts) {
    const l = local(t.created_at, timezone);
    heatmap[l.weekday]![l.hour]! += 1;
    days[l.weekday]! += 1;
    hours[l.hour]! += 1;
  }
  let peakDay: string | null = null;
  let peakDayCount = 0;
  days.forEach((count, day) => {
    if (count > peakDayCount) [peakDay, peakDayCount] = [WEEKDAYS[day]!, count];
  });
  let peakHour: number | null = null;
  let peakHourCount = 0;
  hours.forEach((count, hour) => {
    if (count > peakHourCount) [peakHour, peakHourCount] = [hour, count];
  });
  const cells = heatmap
    .flatMap((row, day) => row.map((count, hour) => ({ day, hour, count })))
    .filter((cell) => cell.count > 0)
    .sort((a, b) => b.count - a.count || a.day - b.day || a.hour - b.hour);

  // Growth.
  const windowSnapshots = input.profileSnapshots
    .filter((s) => Date.parse(s.taken_at) >= start && Date.parse(s.taken_at) <= end)
    .sort((a, b) => Date.parse(a.taken_at) - Date.parse(b.taken_at));
  const firstSnap = windowSnapshots[0];
  const lastSnap = windowSnapshots[windowSnapshots.length - 1];
  const growthRate =
    windowSnapshots.length >= 2 && firstSnap && lastSnap && firstSnap.followers !== 0
      ? ((lastSnap.followers - firstSnap.followers) / firstSnap.followers) * 100
      : null;
  const growthByDay = new Map<string, number>();
  for (const s of windowSnapshots) growthByDay.set(local(s.taken_at, timezone).date, s.followers);

  // Time series.
  const series = [];
  const lastDate = local(input.window.end, timezone).date;
  for (let date = local(input.window.start, timezone).date; date <= lastDate;) {
    const day = posts.filter((t) => local(t.created_at, timezone).date === date);
    const e = sum(day.map(engagementOf));
    series.push({
      date,
      tweets: day.length,
      likes: sum(day.map((t) => t.like_count)),
      retweets: sum(day.map((t) => t.retweet_count)),
      replies: sum(day.map((t) => t.reply_count)),
      quotes: sum(day.map((t) => t.quote_count)),
      engagement: e,
      engagement_rate: followers ? (day.length ? (e / day.length / followers) * 100 : 0) : null,
    });
    date = nextDate(date);
  }

  // Content.
  const types = {
    text: [] as Tweet[],
    image: [] as Tweet[],
    video: [] as Tweet[],
    link: [] as Tweet[],
  };
  for (const t of posts) types[contentType(t)].push(t);

  // Hashtags: a post counts once per tag, shown in its most frequent spelling.
  const tagPosts = new Map<string, number>();
  const spellings = new Map<string, Map<string, number>>();
  for (const t of posts) {
    const seen = new Set<string>();
    for (const raw of t.hashtags) {
      const spelling = raw.replace(/^#/, '');
      const key = spelling.toLowerCase();
      const counts = spellings.get(key) ?? new Map<string, number>();
      counts.set(spelling, (counts.get(spelling) ?? 0) + 1);
      spellings.set(key, counts);
      if (!seen.has(key)) tagPosts.set(key, (tagPosts.get(key) ?? 0) + 1);
      seen.add(key);
    }
  }
  const hashtags = [...tagPosts]
    .map(([key, count]) => {
      const best = [...spellings.get(key)!].sort(
        (a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0),
      )[0]![0];
      return { tag: best, count };
    })
    .sort((a, b) => b.count - a.count || (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0))
    .slice(0, 20);

  // Languages.
  const langCounts = new Map<string, number>();
  for (const t of posts)
    langCounts.set(t.lang || 'und', (langCounts.get(t.lang || 'und') ?? 0) + 1);
  const languages = [...langCounts]
    .map(([lang, count]) => ({ lang, count, percentage: (count / n) * 100 }))
    .sort((a, b) => b.count - a.count || (a.lang < b.lang ? -1 : 1));

  // Virality.
  const sorted = posts.map(engagementOf).sort((a, b) => a - b);
  const median =
    n === 0 ? 0 : n % 2 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
  const threshold = Math.max(10, 3 * median);
  const viralCount = posts.filter((t) => engagementOf(t) >= threshold).length;

  // Velocity.
  const velocityAt = (a: number) => {
    const values: number[] = [];
    for (const t of posts) {
      const created = Date.parse(t.created_at);
      const snaps = input.metricSnapshots
        .filter((s) => s.tweet_id === t.id && Date.parse(s.taken_at) >= created)
        .map((s) => ({
          at: Date.parse(s.taken_at),
          e: s.likes + s.retweets + s.replies + s.quotes,
        }))
        .sort((x, y) => x.at - y.at);
      if (snaps.length === 0) continue;
      if (snaps[snaps.length - 1]!.at - created < a * HOUR_MS) continue;
      const points = [{ at: created, e: 0 }, ...snaps];
      const target = created + a * HOUR_MS;
      for (let i = 1; i < points.length; i += 1) {
        const p0 = points[i - 1]!;
        const p1 = points[i]!;
        if (p1.at >= target) {
          const e =
            p1.at === p0.at ? p1.e : p0.e + ((p1.e - p0.e) * (target - p0.at)) / (p1.at - p0.at);
          values.push(e / a);
          break;
        }
      }
    }
    return values;
  };
  let peak: number | null = null;
  for (const t of posts) {
    const created = Date.parse(t.created_at);
    const snaps = input.metricSnapshots
      .filter((s) => s.tweet_id === t.id && Date.parse(s.taken_at) >= created)
      .map((s) => ({ at: Date.parse(s.taken_at), e: s.likes + s.retweets + s.replies + s.quotes }))
      .sort((x, y) => x.at - y.at);
    for (let i = 1; i < snaps.length; i += 1) {
      const hoursApart = (snaps[i]!.at - snaps[i - 1]!.at) / HOUR_MS;
      if (hoursApart <= 0) continue;
      const rate = (snaps[i]!.e - snaps[i - 1]!.e) / hoursApart;
      if (peak === null || rate > peak) peak = rate;
    }
  }
  const v1 = velocityAt(1);
  const v3 = velocityAt(3);
  const v6 = velocityAt(6);

  // Threads.
  const threads: { conversation_id: string; length: number; engagement: number }[] = [];
  const inThread = new Set<string>();
  if (input.xUserId) {
    for (const root of posts.filter((t) => t.id === t.conversation_id)) {
      const members = posts.filter(
        (t) =>
          t.id === root.id ||
          (t.conversation_id === root.id && t.in_reply_to_user_id === input.xUserId),
      );
      if (members.length < 2) continue;
      members.forEach((t) => inThread.add(t.id));
      threads.push({
        conversation_id: root.id,
        length: members.length,
        engagement: sum(members.map(engagementOf)),
      });
    }
  }
  const best =
    [...threads].sort(
      (a, b) =>
        b.engagement - a.engagement ||
        b.length - a.length ||
        (BigInt(b.conversation_id) > BigInt(a.conversation_id) ? 1 : -1),
    )[0] ?? null;
  const threadPerformance = {
    thread_count: threads.length,
    avg_thread_length: threads.length ? sum(threads.map((x) => x.length)) / threads.length : 0,
    avg_thread_engagement: threads.length
      ? sum(threads.map((x) => x.engagement)) / threads.length
      : 0,
    avg_standalone_engagement: mean(posts.filter((t) => !inThread.has(t.id)).map(engagementOf)),
    best_thread: best,
  };

  // Distribution, interactions, media.
  const bucketOf = (e: number) =>
    e === 0
      ? '0'
      : e < 10
        ? '1-9'
        : e < 100
          ? '10-99'
          : e < 1000
            ? '100-999'
            : e < 10000
              ? '1k-9.9k'
              : '10k+';
  const buckets = ['0', '1-9', '10-99', '100-999', '1k-9.9k', '10k+'].map((bucket) => ({
    bucket,
    count: posts.filter((t) => bucketOf(engagementOf(t)) === bucket).length,
  }));
  const share = (value: number) => (engagement ? (value / engagement) * 100 : 0);
  const mediaItems = posts.flatMap((t) => t.media);
  const withMedia = posts.filter((t) => t.media.length > 0);
  const mediaCounts = {
    photos: mediaItems.filter((m) => m.type === 'photo').length,
    videos: mediaItems.filter((m) => m.type === 'video').length,
    gifs: mediaItems.filter((m) => m.type === 'animated_gif').length,
    posts_with_media: withMedia.length,
  };
  const contentTypes = {
    text: types.text.length,
    image: types.image.length,
    video: types.video.length,
    link: types.link.length,
    retweets: retweets.length,
    replies: posts.filter((t) => t.is_reply).length,
    quotes: posts.filter((t) => t.is_quote).length,
  };
  const engagementRate = perFollower(avgEngagement);

  const topIds = [...posts]
    .sort(
      (a, b) =>
        b.like_count - a.like_count ||
        Date.parse(b.created_at) - Date.parse(a.created_at) ||
        (BigInt(b.id) > BigInt(a.id) ? 1 : -1),
    )
    .slice(0, 10)
    .map((t) => t.id);

  return {
    summary: {
      total_tweets: n,
      total_likes: likes,
      total_retweets: rts,
      total_replies: replies,
      total_quotes: quotes,
      avg_likes_per_tweet: n ? likes / n : 0,
      avg_retweets_per_tweet: n ? rts / n : 0,
      avg_replies_per_tweet: n ? replies / n : 0,
      avg_engagement: avgEngagement,
      engagement_rate: engagementRate,
      growth_rate: growthRate,
      peak_day: peakDay,
      peak_hour: peakHour,
      peak_times: cells
        .slice(0, 3)
        .map((c) => ({ day: WEEKDAYS[c.day], hour: c.hour, count: c.count })),
      followers,
    },
    topTweetIds: topIds,
    timeSeries: { series },
    contentTypes,
    engagement: {
      engagementRate,
      averages: {
        likes: n ? likes / n : 0,
        retweets: n ? rts / n : 0,
        replies: n ? replies / n : 0,
        quote_count: n ? quotes / n : 0,
        engagement_rate: engagementRate,
      },
      engagementByType: {
        text: mean(types.text.map(engagementOf)),
        image: mean(types.image.map(engagementOf)),
        video: mean(types.video.map(engagementOf)),
        link: mean(types.link.map(engagementOf)),
      },
    },
    postingPatterns: {
      heatmap,
      hourly: hours,
      peak_hours: hours
        .map((count, hour) => ({ count, hour }))
        .filter((h) => h.count > 0)
        .sort((a, b) => b.count - a.count || a.hour - b.hour)
        .slice(0, 3)
        .map((h) => h.hour),
      peak_days: days
        .map((count, day) => ({ day: WEEKDAYS[day], count, index: day }))
        .sort((a, b) => b.count - a.count || a.index - b.index)
        .map(({ day, count }) => ({ day, count })),
    },
    hashtags: { hashtags },
    languages: { languages },
    viral: {
      threshold,
      viral_tweet_count: viralCount,
      score: n ? (viralCount / n) * 100 : 0,
      amplification_factor: n ? (rts + quotes) / n : 0,
      coefficient: (rts + quotes) / Math.max(1, likes),
      network_amplification: perFollower(rts + quotes),
    },
    velocity: {
      avg_1h: v1.length ? mean(v1) : null,
      avg_3h: v3.length ? mean(v3) : null,
      avg_6h: v6.length ? mean(v6) : null,
      posts_measured_1h: v1.length,
      posts_measured_3h: v3.length,
      posts_measured_6h: v6.length,
      peak,
    },
    threadPerformance,
    engagementDistribution: { buckets },
    interactionBreakdown: {
      likes: share(likes),
      retweets: share(rts),
      replies: share(replies),
      quotes: share(quotes),
    },
    mediaStats: {
      ...mediaCounts,
      avg_engagement_with_media: mean(withMedia.map(engagementOf)),
      avg_engagement_without_media: mean(
        posts.filter((t) => t.media.length === 0).map(engagementOf),
      ),
    },
    enhancedContent: {
      mediaBreakdown: mediaCounts,
      contentTypes,
      threadAnalysis: threadPerformance,
    },
    growth: {
      series: [...growthByDay].map(([date, f]) => ({ date, followers: f })),
      net_change: firstSnap && lastSnap ? lastSnap.followers - firstSnap.followers : null,
      growth_rate: growthRate,
    },
  };
}
