import type { CompleteAnalytics } from '@perch/shared';

export type CsvValue = string | number | boolean | null | undefined;

/** Characters that make a spreadsheet read a cell as a formula (CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break, with quotes
 * doubled. Text that a spreadsheet would run as a formula (=, +, -, @ first) is prefixed with an
 * apostrophe, since tweet texts are written by strangers. Missing values are empty fields.
 */
export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'string') return String(value);
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A CSV document: a header row and the rows, CRLF line ends, ending with a line break. */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvValue[])[]): string {
  return [header, ...rows].map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
}

/** The daily time series: one row per day of the window. */
export function timeSeriesCsv(data: CompleteAnalytics): string {
  return toCsv(
    ['date', 'tweets', 'likes', 'retweets', 'replies', 'quotes', 'engagement', 'engagement_rate'],
    data.timeSeries.series.map((day) => [
      day.date,
      day.tweets,
      day.likes,
      day.retweets,
      day.replies,
      day.quotes,
      day.engagement,
      day.engagement_rate,
    ]),
  );
}

/** The top tweets, ranked as the dashboard lists them. */
export function topTweetsCsv(data: CompleteAnalytics): string {
  return toCsv(
    [
      'rank',
      'id',
      'created_at',
      'text',
      'likes',
      'retweets',
      'replies',
      'quotes',
      'engagement',
      'lang',
      'url',
    ],
    data.topTweets.tweets.map((tweet, index) => [
      index + 1,
      tweet.id,
      tweet.created_at,
      tweet.text,
      tweet.like_count,
      tweet.retweet_count,
      tweet.reply_count,
      tweet.quote_count,
      tweet.engagement,
      tweet.lang,
      tweet.url,
    ]),
  );
}

export type ExportKind = 'complete' | 'timeseries' | 'top-tweets';

/** e.g. perch-nasa-30d-timeseries-2025-03-10.csv */
export function exportFileName(data: CompleteAnalytics, kind: ExportKind): string {
  const day = data.computed_at.slice(0, 10);
  const extension = kind === 'complete' ? 'json' : 'csv';
  return `perch-${data.handle}-${data.period}d-${kind}-${day}.${extension}`;
}

/** The file of one export kind: its name, type and content. */
export function buildExport(
  data: CompleteAnalytics,
  kind: ExportKind,
): { fileName: string; mimeType: string; content: string } {
  const fileName = exportFileName(data, kind);
  if (kind === 'complete') {
    return {
      fileName,
      mimeType: 'application/json',
      content: `${JSON.stringify(data, null, 2)}\n`,
    };
  }
  // The byte order mark makes spreadsheet apps read the file as UTF-8 (emoji, accents).
  const csv = kind === 'timeseries' ? timeSeriesCsv(data) : topTweetsCsv(data);
  return { fileName, mimeType: 'text/csv;charset=utf-8', content: `\uFEFF${csv}` };
}

/** Hands a file to the browser's downloads through a Blob and a temporary object URL. */
export function downloadFile(fileName: string, content: string, mimeType: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: mimeType }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.rel = 'noopener';
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // Some browsers start the download asynchronously: release the URL a moment later.
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}
