// The "Client load" section of docs/benchmarks.md, written by bench/client-load/run.mjs.

const HEADING = '## Client load: requests from 1 tab and from 10 tabs';

function table(header, rows) {
  const widths = header.map((cell, i) =>
    Math.max(cell.length, ...rows.map((r) => String(r[i]).length)),
  );
  const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

const ratioText = (ratio) => (ratio === null ? 'n/a' : `${ratio.toFixed(2)}x`);

/** Markdown of one run: how to reproduce, the machine, the numbers and the target. */
export function renderSection(meta, results) {
  const rows = results.flatMap(({ state, one, many, ratio, met }) => [
    [state, one.tabs, one.perMinute, one.sendingTabs, one.openingRequests, '', ''],
    [
      state,
      many.tabs,
      many.perMinute,
      many.sendingTabs,
      many.openingRequests,
      ratioText(ratio),
      met ? 'met' : '**not met**',
    ],
  ]);
  const routes = (byRoute) =>
    Object.entries(byRoute)
      .map(([route, count]) => `${route} ${count}`)
      .join(', ');
  const breakdown = results.flatMap(({ state, one, many }) =>
    [one, many].map((row) => [
      state,
      row.tabs,
      routes(row.byRoute) || '(none)',
      Object.keys(row.otherTabs).length ? routes(row.otherTabs) : '-',
    ]),
  );
  const verdict = results
    .map(({ state, ratio, met }) => `${state} ${ratioText(ratio)} (${met ? 'met' : 'not met'})`)
    .join(', ');
  return `${HEADING}

Reproduce (builds first when needed; about 8 minutes):

\`\`\`sh
npm run bench:client-load
BENCH_WINDOW_S=30 BENCH_NO_DOCS=1 npm run bench:client-load   # a quicker trial, docs untouched
\`\`\`

\`bench/client-load/run.mjs\` starts the built server (the demo tweet source, a temp \`DATA_DIR\`)
behind the counting proxy of \`apps/web/e2e/counting-proxy.ts\`, so every request counted is one
that reached the server. Debian's Chromium opens the dashboard of one user with ${meta.handles} handles in
1 tab, then in ${meta.tabs} tabs of one browser profile (one context: the tabs see each other over
BroadcastChannel), each scenario in a fresh context. The \`/api/...\` requests reaching the proxy
are counted for ${meta.windowS} s, from ${meta.warmupS} s after the first tab opened: the leading tab is then as old
in both scenarios, which matters because polling slows down as the time since the person's last
activity grows (nobody moves a mouse here). All tabs are visible and focused, as Playwright's focus
emulation has them.

- **idle**: ${meta.handles} handles with a 1-day backfill, all completed before measuring.
- **collecting**: ${meta.handles} quiet handles with a 90-day backfill at \`DEMO_PAGE_DELAY_MS=2000\`
  (180 pages each, 4 collector slots): every handle is collecting or queued throughout.
- "sending tabs": how many tabs sent any API request in the window (seen by the pages).
- "opening": requests before the window, while the tabs opened (each tab fetches once on mount).

Run of ${meta.date} on ${meta.cpus} vCPUs (${meta.cpuModel}), Node ${meta.node}, ${meta.chromium};
browser, proxy and server on the same machine:

${table(['state', 'tabs', 'req/min', 'sending tabs', 'opening', `${meta.tabs} tabs vs 1`, `target <= ${meta.target}x`], rows)}

**Target (${meta.tabs} tabs cost at most ${meta.target}x one tab): ${verdict}.**

Only the leading tab polls; the last column of the table below lists what any other tab sent in
the window (a tab that took the lead over, or a follower's fetch on mount). A ratio under 1 comes from the
leader's adaptive polling, not from the number of tabs. For one, the leader rates the network from
the latency of its connectivity probe as the page measures it: while ${meta.tabs} tabs load on this
machine the first probes take over a second, which rates the network 'moderate' (intervals x1)
instead of 'good' (x0.8) until they leave the 10-probe history (5 minutes); reading the runtime
in the page during a trial run showed that, and the lone tab rated the network 'good'. Unchanged
polls (queued handles) stretch intervals further, at their own pace in each run.

Requests in the window by route:

${table(['state', 'tabs', `requests in ${meta.windowS} s`, 'of which not from the busiest tab'], breakdown)}
`;
}

/** The document with its client load section replaced by `section` (appended when missing). */
export function replaceSection(doc, section) {
  const start = doc.search(/^## Client load/m);
  if (start === -1) return `${doc.replace(/\s*$/, '')}\n\n${section}`;
  const rest = doc.slice(start + 1);
  const next = rest.search(/^## /m);
  const end = next === -1 ? doc.length : start + 1 + next;
  return `${doc.slice(0, start)}${section}${next === -1 ? '' : '\n'}${doc.slice(end)}`;
}
