// Tweet search benchmark (issue target: a search answers in under 50 ms at 100,000 tweets).
// Usage: npm run bench:tweets-search   (prints Markdown tables, then one JSON line)
//        BENCH_DIALECTS=sqlite npm run bench:tweets-search   (SQLite only)
//        BENCH_DATABASE_URL=postgres://... (default postgres://postgres@127.0.0.1:5432/test)
//
// For each database, bench/tweets-search/server.mjs serves the built app with one signed-in user
// following one handle of 100,000 tweets (90 days of synthetic posts, replies, quotes, retweets
// and media in six languages, bench/analytics/synthetic.mjs), stored through upsertTweets. This
// process then asks GET /api/v1/handles/{handle}/tweets for realistic searches (a frequent word,
// a rare one, two words, a word being typed, a hashtag, accented and Japanese words, nothing
// found) and for type and sort combinations with and without a search, over one keep-alive
// connection, one request at a time: rounds of each query in turn, so machine noise hits all
// alike. GET /api/v1/auth/check, which every signed-in request pays for, is timed alongside.
import { fork } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, percentile } from '../lib/stats.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',');
const TWEETS = Number(process.env.BENCH_TWEETS ?? 100_000);
/** Rounds; each sends REQUESTS of every query in turn. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 10);
const TARGET_MS = 50;

/** What the browser asks: a page of 20 (the web's page size), searched, filtered, sorted. */
const QUERIES = [
  { name: 'no search (first page)', query: '' },
  { name: 'frequent word', query: 'q=data', search: true },
  { name: 'rare word', query: 'q=postmortem', search: true },
  { name: 'two words', query: 'q=product%20launch', search: true },
  { name: 'word being typed (prefix)', query: 'q=lau', search: true },
  { name: 'one letter (prefix)', query: 'q=s', search: true },
  { name: 'hashtag', query: 'q=%23TypeScript', search: true },
  { name: 'accented word', query: `q=${encodeURIComponent('données')}`, search: true },
  { name: 'Japanese word', query: `q=${encodeURIComponent('製品')}`, search: true },
  { name: 'odd characters', query: `q=${encodeURIComponent('"data* -launch:')}`, search: true },
  { name: 'nothing found', query: 'q=zebra', search: true },
  { name: 'frequent word, page 50', query: 'q=data&page=50', search: true },
  { name: 'type=reply', query: 'type=reply' },
  { name: 'type=media, sort=likes', query: 'type=media&sort=likes' },
  { name: 'type=post, sort=engagement', query: 'type=post&sort=engagement' },
  { name: 'type=retweet', query: 'type=retweet' },
  { name: 'sort=likes', query: 'sort=likes' },
  { name: 'sort=engagement', query: 'sort=engagement' },
  {
    name: 'frequent word, type=post, sort=engagement',
    query: 'q=data&type=post&sort=engagement',
    search: true,
  },
  {
    name: 'two words, type=media, sort=likes',
    query: 'q=product%20launch&type=media&sort=likes',
    search: true,
  },
  {
    name: 'word being typed, type=reply, sort=likes',
    query: 'q=lau&type=reply&sort=likes',
    search: true,
  },
  { name: 'no search, page 1,000', query: 'page=1000' },
];

const round = (ms, digits = 2) => Number(ms.toFixed(digits));

/** One GET over the keep-alive connection: status, body and wall time in ms. */
function get(agent, port, url, headers) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.request({ host: '127.0.0.1', port, path: url, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode,
          body: Buffer.concat(chunks),
          ms: performance.now() - started,
        }),
      );
      res.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

async function benchDialect(dialect) {
  const child = fork(path.join(HERE, 'server.mjs'), [], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_DIALECT: dialect, BENCH_TWEETS: String(TWEETS) },
  });
  const server = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`${dialect} server exited with ${code}`)));
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const headers = { cookie: server.cookie };
  const urlOf = (query) =>
    `/api/v1/handles/${server.handle}/tweets?limit=20${query ? `&${query}` : ''}`;
  const targets = [
    { name: 'auth/check (the floor)', url: '/api/v1/auth/check' },
    ...QUERIES.map((q) => ({ ...q, url: urlOf(q.query) })),
  ];
  const samples = targets.map(() => []);
  const answers = targets.map(() => null);
  try {
    // Warm-up: each query three times (statements prepared, pages cached).
    for (const [i, target] of targets.entries()) {
      for (let n = 0; n < 3; n++) {
        const response = await get(agent, server.port, target.url, headers);
        if (response.status !== 200) {
          throw new Error(`${target.name}: ${response.status} ${response.body.toString()}`);
        }
        answers[i] = response;
      }
    }
    for (let r = 0; r < ROUNDS; r++) {
      for (const [i, target] of targets.entries()) {
        for (let n = 0; n < REQUESTS; n++) {
          const response = await get(agent, server.port, target.url, headers);
          if (response.status !== 200) throw new Error(`${target.name}: ${response.status}`);
          samples[i].push(response.ms);
        }
      }
    }
  } finally {
    agent.destroy();
    child.disconnect();
    await new Promise((resolve) => child.once('exit', resolve));
  }
  const rows = targets.map((target, i) => {
    const data = target.url.startsWith('/api/v1/auth') ? null : JSON.parse(answers[i].body).data;
    return {
      name: target.name,
      query: target.query ?? null,
      search: Boolean(target.search),
      matches: data ? data.total : null,
      returned: data ? data.tweets.length : null,
      bytes: answers[i].body.length,
      requests: samples[i].length,
      p50: round(median(samples[i])),
      p95: round(percentile(samples[i], 95)),
      max: round(Math.max(...samples[i])),
    };
  });
  const searches = rows.filter((row) => row.search);
  return {
    dialect,
    tweets: server.tweets,
    seedSeconds: round(server.seedSeconds, 1),
    tweetsPerSecondStored: Math.round(server.tweets / server.seedSeconds),
    tableBytes: server.tableBytes,
    searchIndexBytes: server.searchIndexBytes,
    rows,
    worstSearchP95: Math.max(...searches.map((row) => row.p95)),
    worstP95: Math.max(...rows.map((row) => row.p95)),
  };
}

const n = (value) => (value === null ? '–' : value.toLocaleString('en-US'));
const mb = (bytes) => (bytes === null ? '–' : `${(bytes / 1024 / 1024).toFixed(1)} MB`);

/** One database's table, printed as soon as it is measured. */
function printResult(result) {
  console.log(`
### ${result.dialect}: ${n(result.tweets)} tweets of one handle

stored in ${result.seedSeconds} s (${n(result.tweetsPerSecondStored)} tweets/s through upsertTweets, 100 a call, search index included); tweets table ${mb(result.tableBytes)}, search index ${mb(result.searchIndexBytes)}

| request (\`GET /api/v1/handles/{handle}/tweets?limit=20&...\`) | matches | p50 ms | p95 ms | max ms |
|---|---|---|---|---|
${result.rows
  .map(
    (row) =>
      `| ${row.name}${row.query ? ` (\`${decodeURIComponent(row.query)}\`)` : ''} | ${n(row.matches)} | ${row.p50} | ${row.p95} | ${row.max} |`,
  )
  .join('\n')}

worst search p95: ${result.worstSearchP95} ms (target < ${TARGET_MS} ms: ${result.worstSearchP95 < TARGET_MS ? 'met' : 'not met'}); worst p95 of all requests: ${result.worstP95} ms
`);
}

const started = performance.now();
const loadBefore = os.loadavg()[0];
const results = [];
for (const dialect of DIALECTS) {
  const result = await benchDialect(dialect);
  printResult(result);
  results.push(result);
}
const summary = {
  machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`,
  rounds: ROUNDS,
  requestsPerRound: REQUESTS,
  results,
  targetMet: results.every((result) => result.worstSearchP95 < TARGET_MS),
  seconds: Math.round((performance.now() - started) / 1000),
  loadAverage: [loadBefore, os.loadavg()[0]].map((load) => round(load, 1)),
};
console.log(
  `load average (1 min) before and after: ${summary.loadAverage.join(', ')} on ${os.cpus().length} CPUs; ${summary.seconds} s`,
);
console.log(JSON.stringify(summary));
