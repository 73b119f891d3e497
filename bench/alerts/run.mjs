// Alerts benchmark (issue targets: evaluating 1,000 handles with 5 rules each while ingesting
// adds at most 1 ms per stored page of 100 posts; webhook delivery rate against a local
// receiver, in requests/s and p95).
// Usage: npm run bench:alerts   (prints Markdown tables, then one JSON line; about 1.5 minutes
//        with both databases)
//        BENCH_DATABASE_URL=postgres://... npm run bench:alerts   (adds PostgreSQL)
//        BENCH_DIALECTS=sqlite npm run bench:alerts                (one database only)
//        BENCH_PROFILE_DIR=/tmp/prof npm run bench:alerts          (keeps the .cpuprofile files)
//
// Each part runs in its own child process against the built server (apps/server/dist, or
// BENCH_SERVER_DIST), on a fresh database: evaluation.mjs (the evaluation cost, the handle sweep,
// statement counts and CPU profiles) and delivery.mjs (the webhook client alone, then the
// delivery worker). This process hosts the webhook receiver: node:http on 127.0.0.1, answering
// 204 to every request once its body is in, recording when each arrived.
import { fork } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const TARGET_ADDED_MS = 1;
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres')
  .split(',')
  .filter((dialect) => dialect === 'sqlite' || process.env.BENCH_DATABASE_URL);

/** Wall-clock time with sub-millisecond precision, comparable across processes. */
const clock = () => performance.timeOrigin + performance.now();
const round = (value, digits = 1) => (value === null ? null : Number(value.toFixed(digits)));
const loadAverage = () => os.loadavg().map((load) => Number(load.toFixed(2)));

/** The loopback receiver: 204 to everything, each arrival recorded. */
async function startReceiver() {
  const arrivals = [];
  const server = http.createServer((req, res) => {
    let bytes = 0;
    req.on('data', (chunk) => (bytes += chunk.length));
    req.on('end', () => {
      arrivals.push({
        at: clock(),
        path: req.url ?? '',
        deliveryId: req.headers['x-perch-delivery'],
        bytes,
      });
      res.writeHead(204);
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    arrivals,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Runs a part in a child process; resolves to what it reports. */
function runChild(file, dialect, env = {}) {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(HERE, file), [dialect], {
      execArgv: [],
      env: { ...process.env, ...env },
      stdio: 'inherit',
    });
    let message;
    child.on('message', (m) => (message = m));
    child.on('exit', (code) => {
      if (message?.ok) resolve(message.result);
      else reject(new Error(`${file} ${dialect}: ${message?.error ?? `exited with ${code}`}`));
    });
  });
}

/** Arrivals at the receiver of one stretch: how many, over how long, repeats of a delivery id. */
function arrivalsOf(arrivals, from) {
  const times = arrivals.map((a) => a.at).sort((a, b) => a - b);
  const first = times[0] ?? null;
  const last = times.at(-1) ?? null;
  const spanS = first === null ? null : (last - first) / 1000;
  return {
    count: arrivals.length,
    duplicates: arrivals.length - new Set(arrivals.map((a) => a.deliveryId)).size,
    bodyBytes: arrivals.length
      ? Math.round(arrivals.reduce((s, a) => s + a.bytes, 0) / arrivals.length)
      : 0,
    firstToLastS: round(spanS, 3),
    requestsPerSecond: spanS ? round(arrivals.length / spanS) : null,
    fromStartS: from === undefined || last === null ? null : round((last - from) / 1000, 3),
    fromStartPerSecond:
      from === undefined || last === null ? null : round(arrivals.length / ((last - from) / 1000)),
  };
}

async function webhookRun(receiver, dialect) {
  receiver.arrivals.length = 0;
  const result = await runChild('delivery.mjs', dialect, { BENCH_RECEIVER: receiver.origin });
  const all = [...receiver.arrivals];
  const raw = result.raw.map((loop) => ({
    ...loop,
    receiver: arrivalsOf(
      all.filter(
        (a) => a.path.startsWith('/raw/') && a.deliveryId.startsWith(`raw-${loop.parallel}-`),
      ),
    ),
  }));
  return {
    ...result,
    raw,
    worker: {
      ...result.worker,
      receiver: arrivalsOf(
        all.filter((a) => a.path.startsWith('/worker/')),
        result.worker.startedAt,
      ),
    },
  };
}

// ---------------------------------------------------------------------------------------------

const loadBefore = loadAverage();
const receiver = await startReceiver();
const evaluation = {};
const webhooks = {};
for (const dialect of DIALECTS) {
  evaluation[dialect] = await runChild('evaluation.mjs', dialect);
  webhooks[dialect] = await webhookRun(receiver, dialect);
}
await receiver.close();
const loadAfter = loadAverage();

const NAMES = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
const met = (ok) => (ok ? 'met' : '**not met**');
/**
 * What alerts add to ingesting a page: store + evaluation of a watched handle's page against
 * the store of an unwatched handle's page (no marks, nothing to evaluate), at a percentile.
 */
const addedToIngest = (d, pages, at) =>
  round(evaluation[d][pages].storeAndEvaluateMs[at] - evaluation[d].unwatchedPages.storeMs[at], 2);
const targets = Object.fromEntries(
  DIALECTS.map((d) => [d, addedToIngest(d, 'pages', 'p50') <= TARGET_ADDED_MS]),
);
const targetsQuiet = Object.fromEntries(
  DIALECTS.map((d) => [d, addedToIngest(d, 'quietPages', 'p50') <= TARGET_ADDED_MS]),
);
const columns = DIALECTS.map((d) => NAMES[d]);
const header = (first, last) =>
  `| ${first} | ${columns.join(' | ')} |${last ? ` ${last} |` : ''}\n|---|${DIALECTS.map(() => '---|').join('')}${last ? '---|' : ''}`;
const row = (label, cell, last) =>
  `| ${label} | ${DIALECTS.map(cell).join(' | ')} |${last !== undefined ? ` ${last} |` : ''}`;
const ms = (s) => `${s.p50} / ${s.p95}`;
const first = evaluation[DIALECTS[0]];

/** The statements of some phases of the evaluation (per page), side by side. */
function statementTable(phases) {
  const columns = DIALECTS.flatMap((d) => phases.map(([phase, name]) => [d, phase, name]));
  const labels = [
    ...new Set(
      columns.flatMap(([d, phase]) => evaluation[d].statements[phase].map((s) => s.label)),
    ),
  ];
  const cell = (label, [d, phase]) => {
    const s = evaluation[d].statements[phase].find((entry) => entry.label === label);
    return s ? `${s.perPage} / ${s.msPerPage} ms` : '-';
  };
  const total = ([d, phase]) => {
    const all = evaluation[d].statements[phase];
    const count = all.reduce((sum, s) => sum + s.perPage, 0);
    return `${round(count)} / ${all.reduce((sum, s) => sum + s.msPerPage, 0).toFixed(2)} ms`;
  };
  return [
    `| statement | ${columns.map(([d, , name]) => `${NAMES[d]}${name ? `, ${name}` : ''}`).join(' | ')} |`,
    `|---|${columns.map(() => '---|').join('')}`,
    ...labels.map(
      (label) => `| \`${label}\` | ${columns.map((c) => cell(label, c)).join(' | ')} |`,
    ),
    `| all | ${columns.map(total).join(' | ')} |`,
  ].join('\n');
}

/** The delivery worker's statements per delivery, side by side (those of at least 0.5 per delivery). */
function workerStatementRows() {
  const labels = [
    ...new Set(
      DIALECTS.flatMap((d) =>
        webhooks[d].worker.statements.filter((s) => s.perDelivery >= 0.5).map((s) => s.label),
      ),
    ),
  ];
  return labels
    .map((label) =>
      row(`\`${label}\``, (d) => {
        const s = webhooks[d].worker.statements.find((entry) => entry.label === label);
        return s ? `${s.perDelivery} / ${s.msPerDelivery} ms` : '-';
      }),
    )
    .join('\n');
}

function profileRows(part) {
  const names = [
    ...new Set(DIALECTS.flatMap((d) => evaluation[d].profiles[part].categories.map((c) => c.name))),
  ];
  return names
    .map((name) =>
      row(name, (d) => {
        const c = evaluation[d].profiles[part].categories.find((entry) => entry.name === name);
        return c ? `${c.share}% (${c.ms} ms)` : '-';
      }),
    )
    .join('\n');
}

const topFunctions = (part) =>
  DIALECTS.map(
    (d) =>
      `${NAMES[d]}: ${evaluation[d].profiles[part].functions
        .slice(0, 6)
        .map((f) => `\`${f.name}\` ${f.share}%`)
        .join(', ')}`,
  ).join('\n');

console.log(`
Evaluation: ${first.handles.toLocaleString('en-US')} handles, each followed by one user with Telegram and one webhook endpoint and ${first.rules / first.handles} enabled rules (${first.ruleKinds.join(', ')}): ${first.rules.toLocaleString('en-US')} rules; ${first.historyPerHandle} posts per handle over 30 days, ${first.profileSnapshots.toLocaleString('en-US')} profile snapshots (2 days every 15 min). ${first.pages.count} firing pages, ${first.quietPages.count} quiet ones and ${first.unwatchedPages.count} quiet ones of handles without rules, in turn (after ${first.warmupPages} warm-up pages), ${first.postsPerPage} new posts each, each page of another handle, stored as monitoring stores them and evaluated at once by the storing process, under the claim its store took (ms; p50 / p95 over the pages)

${header('measure', `target`)}
${row('unwatched handle (no rules): store a page', (d) => ms(evaluation[d].unwatchedPages.storeMs))}
${row('unwatched handle: store + evaluation', (d) => ms(evaluation[d].unwatchedPages.storeAndEvaluateMs))}
${row('firing page: store (with its marks)', (d) => ms(evaluation[d].pages.storeMs))}
${row('firing page: store + evaluate', (d) => ms(evaluation[d].pages.storeAndEvaluateMs))}
${row('firing page: the evaluation alone', (d) => `${ms(evaluation[d].pages.addedMs)} (mean ${evaluation[d].pages.addedMs.mean})`)}
${row('firing page: added to ingest (store + evaluate - unwatched store)', (d) => `${addedToIngest(d, 'pages', 'p50')} / ${addedToIngest(d, 'pages', 'p95')}`, 'the evaluation, plus recording 10 firings and queueing 20 deliveries')}
${row('firings / outbox rows queued per page', (d) => `${evaluation[d].pages.firedPerPage} / ${evaluation[d].pages.queuedPerPage}`, `${first.expectedFiringsPerPage} firings expected`)}
${row('quiet page: store (with its marks)', (d) => ms(evaluation[d].quietPages.storeMs))}
${row('quiet page: the evaluation alone', (d) => `${ms(evaluation[d].quietPages.addedMs)} (mean ${evaluation[d].quietPages.addedMs.mean}; ${evaluation[d].quietPages.firedPerPage} fired)`)}
${row('**quiet page: added to ingest** (store + evaluate - unwatched store)', (d) => `${addedToIngest(d, 'quietPages', 'p50')} / ${addedToIngest(d, 'quietPages', 'p95')}`, `<= ${TARGET_ADDED_MS} ms: ${DIALECTS.map((d) => `${NAMES[d]} ${met(targetsQuiet[d])}`).join(', ')}`)}
${row('so one firing costs about (mean, firing - quiet) / firings', (d) => `${((evaluation[d].pages.addedMs.mean - evaluation[d].quietPages.addedMs.mean) / evaluation[d].pages.firedPerPage).toFixed(2)} ms`)}
${row("the delivery worker's pass after a quiet page (it finds the page evaluated; it runs once per wake-up, not per page)", (d) => ms(evaluation[d].quietPages.passMs))}
${row('a pass with nothing to evaluate', (d) => ms(evaluation[d].emptyPassMs))}
${row(`handle sweep (evaluateHandleRules), ${first.rules.toLocaleString('en-US')} rules: first, then steady`, (d) => `${evaluation[d].sweeps[0].ms} / ${evaluation[d].sweeps[1].ms} (${evaluation[d].sweeps[0].evaluated} handle rules, ${evaluation[d].sweeps[0].fired} fired)`)}
${row('setup (of which history)', (d) => `${evaluation[d].setupS} s (${evaluation[d].historyS} s)`)}

Statements per page of the evaluation (count / time, compile to result; begin and commit not included), over ${first.statements.pages} more pages of each kind

${statementTable([
  ['evaluate', 'firing page'],
  ['evaluateQuiet', 'quiet page'],
])}

Statements of one handle sweep

${statementTable([['sweep', '']])}

CPU profile: the evaluation alone of ${first.profiles.pages} more pages (one page, one mark, per batch), share of the profiled time

${header('where')}
${profileRows('evaluation')}

${topFunctions('evaluation')}

CPU profile: one handle sweep

${header('where')}
${profileRows('sweep')}

${topFunctions('sweep')}

Webhooks: a receiver on 127.0.0.1 (node:http, 204), WEBHOOK_ALLOW_LOOPBACK; request times measured at the client (signing, connecting, request, answer); rates counted at the receiver

${header('measure')}
${row('client alone (`send`), one at a time: req/s, p50 / p95 ms', (d) => `${webhooks[d].raw[0].receiver.requestsPerSecond} req/s, ${webhooks[d].raw[0].latencyMs.p50} / ${webhooks[d].raw[0].latencyMs.p95} ms (${webhooks[d].raw[0].requests} requests)`)}
${row(`client alone, ${webhooks[DIALECTS[0]].concurrency} in flight`, (d) => `${webhooks[d].raw[1].receiver.requestsPerSecond} req/s, ${webhooks[d].raw[1].latencyMs.p50} / ${webhooks[d].raw[1].latencyMs.p95} ms (${webhooks[d].raw[1].requests} requests)`)}
${row(`delivery worker: ${webhooks[DIALECTS[0]].deliveries.toLocaleString('en-US')} outbox rows over ${webhooks[DIALECTS[0]].endpoints} endpoints, first to last request`, (d) => `${webhooks[d].worker.receiver.requestsPerSecond} req/s (${webhooks[d].worker.receiver.firstToLastS} s)`)}
${row('delivery worker, end to end (start, fan-out, sends)', (d) => `${webhooks[d].worker.receiver.fromStartPerSecond} req/s (${webhooks[d].worker.receiver.fromStartS} s)`)}
${row('delivery worker: request p50 / p95 / max ms', (d) => `${webhooks[d].worker.latencyMs.p50} / ${webhooks[d].worker.latencyMs.p95} / ${webhooks[d].worker.latencyMs.max}`)}
${row("received / outbox 'sent' / duplicates", (d) => `${webhooks[d].worker.receiver.count} / ${webhooks[d].worker.outbox.sent ?? 0} / ${webhooks[d].worker.receiver.duplicates}`)}
${row('body bytes (worker / client alone)', (d) => `${webhooks[d].worker.receiver.bodyBytes} / ${webhooks[d].raw[1].receiver.bodyBytes}`)}
${row('statements per delivery (count / time)', (d) => `${webhooks[d].worker.statements.reduce((s, x) => s + x.perDelivery, 0).toFixed(1)} / ${webhooks[d].worker.statements.reduce((s, x) => s + x.msPerDelivery, 0).toFixed(2)} ms`)}

Statements of the delivery worker per delivery (count / time, compile to result, waits for a connection included)

${header('statement')}
${workerStatementRows()}

Target: evaluating the rules adds <= ${TARGET_ADDED_MS} ms to ingesting a page (p50, a page of a watched handle whose posts fire nothing: what every page pays): ${DIALECTS.map((d) => `${NAMES[d]} ${met(targetsQuiet[d])}`).join(', ')}. A page where 10 posts fire adds ${DIALECTS.map((d) => `${addedToIngest(d, 'pages', 'p50')} ms (${NAMES[d]})`).join(' and ')}: each firing's record and its 2 deliveries come on top (docs/decisions.md).
load average (1, 5, 15 min): before ${loadBefore.join(', ')}; after ${loadAfter.join(', ')}
`);
console.log(
  JSON.stringify({
    machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`,
    server: process.env.BENCH_SERVER_DIST ?? 'apps/server/dist',
    loadAverage: { before: loadBefore, after: loadAfter },
    evaluation,
    webhooks,
    targets: { firingPageP50: targets, quietPageP50: targetsQuiet },
  }),
);
