// Analytics benchmark (issue targets: the `complete` computation for 1,000, 10,000 and 100,000
// posts in the window takes a p50 of at most 50 ms uncached at 10,000 posts, growing linearly,
// and a cached HTTP response has a p50 of at most 5 ms).
// Usage: npm run bench:analytics   (prints Markdown tables, then one JSON line)
//
// 1. Engine: a child process calls the built engine's computeAnalytics on deterministic
//    synthetic data (bench/analytics/synthetic.mjs), the sizes in turn, round after round.
// 2. HTTP: bench/analytics/server.mjs serves the built app on SQLite with one signed-in user
//    and one stored handle per size. Uncached requests are made by marking the handle's data
//    as changed before each one; cached ones are timed side by side with GET /auth/check, which
//    every authenticated request pays for. One keep-alive connection, one request at a time.
import { fork } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateHandleData, toAnalyticsInput } from './synthetic.mjs';
import { median, percentile } from '../lib/stats.mjs';

const SELF = fileURLToPath(import.meta.url);
const HERE = path.dirname(SELF);
const SIZES = [1_000, 10_000, 100_000];
const TIMEZONE = 'America/New_York';
/** Rounds of the cached comparison; each round sends REQUESTS to every target in turn. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
/** Rounds of timed engine runs; each round runs every size for about the same time. */
const ENGINE_ROUNDS = Number(process.env.BENCH_ENGINE_ROUNDS ?? 11);

const round = (ms, digits = 2) => Number(ms.toFixed(digits));

// ---------------------------------------------------------------------------------------------
// Child: the engine at every size.
async function engineRun() {
  const engine = await import('../../apps/server/dist/analytics/index.js');
  const end = Date.UTC(2026, 10, 22, 17, 0, 0);
  const inputs = SIZES.map((posts) => {
    const data = generateHandleData({ posts, end, seed: 7 });
    const input = toAnalyticsInput(data, {
      handle: 'bench',
      xUserId: '4242424242',
      end,
      timezone: TIMEZONE,
    });
    const counted = engine.prepareWindow(input).posts.length;
    if (counted !== posts) {
      throw new Error(`expected ${posts} posts in the window, the engine counted ${counted}`);
    }
    return { posts, input: asServed(engine, input), everyText: input };
  });

  const time = (fn) => {
    const started = performance.now();
    fn();
    return performance.now() - started;
  };
  // Warm up, then time the sizes in turn, round after round, so that machine noise hits every
  // size alike; each round gives every size about the same time (at least one run).
  const perRun = inputs.map(({ input, everyText }) => {
    for (let i = 0; i < 3; i++) engine.computeAnalytics(input);
    for (let i = 0; i < 3; i++) engine.computeAnalytics(everyText);
    return time(() => engine.computeAnalytics(everyText));
  });
  const slowest = Math.max(...perRun);
  const samples = inputs.map(() => []);
  const everyTextSamples = inputs.map(() => []);
  for (let round = 0; round < ENGINE_ROUNDS; round++) {
    inputs.forEach(({ input, everyText }, i) => {
      const runs = Math.max(1, Math.min(20, Math.round(slowest / perRun[i])));
      for (let run = 0; run < runs; run++) {
        samples[i].push(time(() => engine.computeAnalytics(input)));
        everyTextSamples[i].push(time(() => engine.computeAnalytics(everyText)));
      }
    });
  }

  // Where the time goes: the window preparation and each block alone (median of 5).
  const breakdownOf = (input) => {
    const prepared = engine.prepareWindow(input);
    const blocks = {
      prepareWindow: () => engine.prepareWindow(input),
      summary: () => engine.summary(prepared),
      topTweets: () => engine.topTweets(prepared),
      timeseries: () => engine.timeseries(prepared),
      contentTypes: () => engine.contentTypes(prepared),
      engagement: () => engine.engagement(prepared),
      postingPatterns: () => engine.postingPatterns(prepared),
      hashtags: () => engine.hashtags(prepared),
      words: () => engine.words(prepared),
      languages: () => engine.languages(prepared),
      viral: () => engine.viral(prepared),
      velocity: () => engine.velocity(prepared),
      threadPerformance: () => engine.threadPerformance(prepared),
      engagementDistribution: () => engine.engagementDistribution(prepared),
      interactionBreakdown: () => engine.interactionBreakdown(prepared),
      mediaStats: () => engine.mediaStats(prepared),
      growth: () => engine.growth(prepared),
    };
    const breakdown = {};
    for (const [name, fn] of Object.entries(blocks)) {
      fn();
      breakdown[name] = round(median(Array.from({ length: 5 }, () => time(fn))));
    }
    return breakdown;
  };

  return Object.fromEntries(
    inputs.map(({ posts, input, everyText }, i) => [
      posts,
      {
        posts,
        tweets: input.tweets.length,
        metricSnapshots: input.metricSnapshots.length,
        profileSnapshots: input.profileSnapshots.length,
        avgTextChars: Math.round(
          everyText.tweets.reduce((sum, tweet) => sum + tweet.text.length, 0) /
            everyText.tweets.length,
        ),
        textsRead: input.tweets.filter((tweet) => tweet.text !== null).length,
        everyTextP50: round(median(everyTextSamples[i])),
        everyTextWords: round(
          median(
            Array.from({ length: 5 }, () => {
              const prepared = engine.prepareWindow(everyText);
              return time(() => engine.words(prepared));
            }),
          ),
        ),
        runs: samples[i].length,
        p50: round(median(samples[i])),
        p95: round(percentile(samples[i], 95)),
        min: round(Math.min(...samples[i])),
        usPerPost: round((median(samples[i]) * 1000) / posts, 3),
        breakdown: breakdownOf(input),
      },
    ]),
  );
}

/**
 * The input as the service gives it to the engine: the words of the window's whole UTC days as
 * the sum of each day's counts (what tweet_word_days keeps), and no text for those days' posts.
 */
function asServed(engine, input) {
  const span = engine.wholeUtcDays(input.window);
  const inSpan = (tweet) => tweet.createdAt >= span.start && tweet.createdAt < span.end;
  const days = new Map();
  for (const tweet of input.tweets) {
    if (tweet.isRetweet || !inSpan(tweet)) continue;
    const day = Math.floor(tweet.createdAt / 86_400_000);
    if (!days.has(day)) days.set(day, []);
    days.get(day).push(tweet.text);
  }
  const counts = new Map();
  for (const texts of days.values()) {
    for (const [word, count] of engine.countWords(texts)) {
      counts.set(word, (counts.get(word) ?? 0) + count);
    }
  }
  const served = {
    ...input,
    tweets: input.tweets.map((tweet) => (inSpan(tweet) ? { ...tweet, text: null } : tweet)),
    wordDays: { ...span, counts },
  };
  const same = JSON.stringify(engine.words(engine.prepareWindow(served)));
  if (same !== JSON.stringify(engine.words(engine.prepareWindow(input)))) {
    throw new Error('the words of the served input differ from those of every text');
  }
  return served;
}

// ---------------------------------------------------------------------------------------------
// Parent helpers.
function forkChild(file, args = []) {
  return fork(file, args, { stdio: 'inherit' });
}

function runEngine() {
  return new Promise((resolve, reject) => {
    const child = forkChild(SELF, ['--engine']);
    let message;
    child.on('message', (m) => (message = m));
    child.on('exit', (code) => {
      if (message?.ok) resolve(message.result);
      else reject(new Error(`engine: ${message?.error ?? `exited with ${code}`}`));
    });
  });
}

/** Request/answer over IPC with the server child, one at a time. */
function ask(child, message) {
  return new Promise((resolve, reject) => {
    child.once('message', (answer) =>
      answer.ok ? resolve(answer.result) : reject(new Error(answer.error)),
    );
    child.send(message);
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** One GET over the keep-alive connection: status, ETag, body size and wall time in ms. */
function get(port, url, headers) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.request({ host: '127.0.0.1', port, path: url, headers, agent }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => (bytes += chunk.length));
      res.on('end', () =>
        resolve({
          status: res.statusCode,
          etag: res.headers.etag,
          bytes,
          ms: performance.now() - started,
        }),
      );
      res.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

async function httpBench() {
  const child = forkChild(path.join(HERE, 'server.mjs'));
  const server = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  const { port, cookie, period, timezone } = server;
  const headers = { cookie };
  const completeUrl = (handle) =>
    `/api/v1/analytics/complete/${handle}?period=${period}&timezone=${encodeURIComponent(timezone)}`;
  const expect = (response, status, what) => {
    if (response.status !== status) throw new Error(`${what}: ${response.status}, not ${status}`);
    return response;
  };

  // Uncached: mark the data as changed, then ask; every answer must be a new computation.
  // Between requests the server times the same steps in-process, so noise hits both alike.
  const uncached = {};
  for (const handle of server.handles) {
    const url = completeUrl(handle.username);
    // The first request after the posts were stored counts the words of each day once.
    const first = expect(await get(port, url, headers), 200, 'first request');
    await ask(child, { type: 'parts', handle: handle.username }); // warm-up
    const runs = handle.posts >= 100_000 ? 5 : handle.posts >= 10_000 ? 10 : 20;
    const samples = [];
    const steps = [];
    let lastEtag;
    for (let i = 0; i < runs; i++) {
      await ask(child, { type: 'bump', handle: handle.username });
      const response = expect(await get(port, url, headers), 200, `uncached ${handle.username}`);
      if (response.etag === lastEtag) throw new Error('an uncached request answered from cache');
      lastEtag = response.etag;
      samples.push(response.ms);
      steps.push(await ask(child, { type: 'parts', handle: handle.username }));
    }
    const stepMedian = (name) => round(median(steps.map((step) => step[name])));
    uncached[handle.posts] = {
      ...handle,
      runs,
      first: round(first.ms),
      p50: round(median(samples)),
      p95: round(percentile(samples, 95)),
      loadMs: stepMedian('loadMs'),
      engineMs: stepMedian('engineMs'),
    };
  }

  // Cached: one warming request each, then the targets in turn, round after round.
  const mid = server.handles.find((h) => h.posts === 10_000) ?? server.handles[0];
  const big = server.handles.at(-1);
  const warm = expect(await get(port, completeUrl(mid.username), headers), 200, 'warm-up');
  const warmBig = expect(await get(port, completeUrl(big.username), headers), 200, 'warm-up');
  const targets = {
    authCheck: { url: '/api/v1/auth/check', headers, status: 200 },
    cached: { url: completeUrl(mid.username), headers, status: 200, etag: warm.etag },
    notModified: {
      url: completeUrl(mid.username),
      headers: { ...headers, 'if-none-match': warm.etag },
      status: 304,
      etag: warm.etag,
    },
    cachedLargest: {
      url: completeUrl(big.username),
      headers,
      status: 200,
      etag: warmBig.etag,
    },
  };
  const samples = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
  const bytes = {};
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, target] of Object.entries(targets)) {
      for (let i = 0; i < REQUESTS; i++) {
        const response = expect(await get(port, target.url, target.headers), target.status, name);
        if (target.etag && response.etag !== target.etag) {
          throw new Error(`${name}: the cached computation was replaced during the run`);
        }
        samples[name].push(response.ms);
        bytes[name] = response.bytes;
      }
    }
  }
  child.disconnect();
  agent.destroy();
  const cached = Object.fromEntries(
    Object.entries(samples).map(([name, list]) => [
      name,
      {
        requests: list.length,
        p50: round(median(list), 3),
        p99: round(percentile(list, 99), 3),
        bytes: bytes[name],
      },
    ]),
  );
  return { uncached, cached, cachedPosts: mid.posts, largestPosts: big.posts };
}

// ---------------------------------------------------------------------------------------------
if (process.argv[2] === '--engine') {
  try {
    process.send({ ok: true, result: await engineRun() });
  } catch (error) {
    process.send({ ok: false, error: String(error?.stack ?? error) });
  }
  process.disconnect();
} else {
  const started = performance.now();
  const loadBefore = os.loadavg()[0];
  const engine = await runEngine();
  const { uncached, cached, cachedPosts, largestPosts } = await httpBench();

  const ratio = (a, b) => round(a / b, 1);
  const result = {
    machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`,
    timezone: TIMEZONE,
    engine,
    growth: {
      '10k/1k': ratio(engine[10_000].p50, engine[1_000].p50),
      '100k/10k': ratio(engine[100_000].p50, engine[10_000].p50),
    },
    uncached,
    cachedRounds: ROUNDS,
    cachedRequestsPerRound: REQUESTS,
    cachedPosts,
    cached,
    seconds: Math.round((performance.now() - started) / 1000),
    loadAverage: [loadBefore, os.loadavg()[0]].map((load) => round(load, 1)),
  };
  result.targetEngineMet = engine[10_000].p50 <= 15;
  result.targetCachedMet = cached.cached.p50 <= 5;

  const n = (value) => value.toLocaleString('en-US');
  const engineRows = SIZES.map((posts, i) => {
    const e = engine[posts];
    const u = uncached[posts];
    const growth = i === 0 ? '' : `${ratio(e.p50, engine[SIZES[i - 1]].p50)}x`;
    return (
      `| ${n(posts)} | ${n(e.tweets)} | ${e.everyTextP50} | ${e.p50} | ${e.p95} | ${e.usPerPost} | ${growth} | ` +
      `${u.first} | ${u.p50} | ${u.loadMs} | ${u.engineMs} |`
    );
  });
  const slowest = (posts) =>
    Object.entries(engine[posts].breakdown)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([name, ms]) => `${name} ${ms} ms`)
      .join(', ');
  const c = cached;
  console.log(`
| posts in window | tweets (with retweets) | engine p50 ms, every text read | engine p50 ms, as served | engine p95 ms | µs per post | p50 growth | first request after storing, ms | uncached HTTP p50 ms | SQLite load and parse ms | engine on loaded rows ms |
|---|---|---|---|---|---|---|---|---|---|---|
${engineRows.join('\n')}

| request (one keep-alive connection, ${ROUNDS} rounds x ${REQUESTS}) | p50 ms | p99 ms | body bytes |
|---|---|---|---|
| \`GET /api/v1/auth/check\` (session lookup, the floor) | ${c.authCheck.p50} | ${c.authCheck.p99} | ${n(c.authCheck.bytes)} |
| \`GET /api/v1/analytics/complete/{handle}\`, ${n(cachedPosts)} posts, cached (200) | ${c.cached.p50} | ${c.cached.p99} | ${n(c.cached.bytes)} |
| same with \`If-None-Match\` (304) | ${c.notModified.p50} | ${c.notModified.p99} | ${n(c.notModified.bytes)} |
| \`GET /api/v1/analytics/complete/{handle}\`, ${n(largestPosts)} posts, cached (200) | ${c.cachedLargest.p50} | ${c.cachedLargest.p99} | ${n(c.cachedLargest.bytes)} |

engine p50 at 10,000 posts: ${engine[10_000].p50} ms (target <= 15 ms: ${result.targetEngineMet ? 'met' : 'not met'}), at 100,000: ${engine[100_000].p50} ms (target <= 150 ms); uncached HTTP p50 ${uncached[10_000].p50} and ${uncached[100_000].p50} ms (targets 60 and 600 ms); growth 10k/1k ${result.growth['10k/1k']}x, 100k/10k ${result.growth['100k/10k']}x (linear = 10x)
slowest parts at 100,000 posts: ${slowest(100_000)}
cached complete p50: ${c.cached.p50} ms (target <= 5 ms: ${result.targetCachedMet ? 'met' : 'not met'}); auth/check p50 ${c.authCheck.p50} ms
load average (1 min) before and after: ${result.loadAverage.join(', ')} on ${os.cpus().length} CPUs
`);
  console.log(JSON.stringify(result));
}
