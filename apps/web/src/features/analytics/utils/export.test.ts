import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeCompleteAnalytics, makeTopTweet } from '../test/analytics-fixtures';
import {
  buildExport,
  csvField,
  downloadFile,
  exportFileName,
  timeSeriesCsv,
  toCsv,
  topTweetsCsv,
} from './export';

/** A small RFC 4180 reader, to check that what is written reads back the same. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(field);
      field = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += char;
  }
  return rows;
}

describe('CSV fields', () => {
  it('leaves plain values alone and writes missing ones empty', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField(42)).toBe('42');
    expect(csvField(3.25)).toBe('3.25');
    expect(csvField(true)).toBe('true');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
  });

  it('quotes commas, quotes and line breaks, doubling quotes', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\r\nlf')).toBe('"cr\r\nlf"');
  });

  it('defuses text a spreadsheet would run as a formula', () => {
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField('+1')).toBe("'+1");
    expect(csvField('-2')).toBe("'-2");
    expect(csvField('@mention hi')).toBe("'@mention hi");
    // Numbers are numbers, not text: a negative count stays as it is.
    expect(csvField(-2)).toBe('-2');
  });

  it('joins rows with CRLF and ends with a line break', () => {
    expect(toCsv(['a', 'b'], [[1, 'x,y']])).toBe('a,b\r\n1,"x,y"\r\n');
  });
});

describe('exports of a payload', () => {
  const tricky = 'Liftoff, "Artemis"\nsecond line';
  const data = makeCompleteAnalytics('nasa', {
    topTweets: {
      tweets: [makeTopTweet({ id: '7', text: tricky, like_count: 9, engagement: 12 })],
    },
  });

  it('writes the time series, one row per day, round-tripping through a CSV reader', () => {
    const rows = parseCsv(timeSeriesCsv(data));
    expect(rows[0]).toEqual([
      'date',
      'tweets',
      'likes',
      'retweets',
      'replies',
      'quotes',
      'engagement',
      'engagement_rate',
    ]);
    expect(rows).toHaveLength(1 + data.timeSeries.series.length);
    expect(rows[1]).toEqual(['2025-03-09', '40', '120000', '1500', '30', '1', '121531', '5.35']);
  });

  it('writes the top tweets with their text intact', () => {
    const rows = parseCsv(topTweetsCsv(data));
    expect(rows[0]?.slice(0, 4)).toEqual(['rank', 'id', 'created_at', 'text']);
    expect(rows[1]?.[0]).toBe('1');
    expect(rows[1]?.[3]).toBe(tricky);
    expect(rows[1]?.at(-1)).toBe('https://x.com/nasa/status/7');
  });

  it('names files after the handle, window and day', () => {
    expect(exportFileName(data, 'timeseries')).toBe('perch-nasa-30d-timeseries-2025-03-10.csv');
    expect(exportFileName(data, 'complete')).toBe('perch-nasa-30d-complete-2025-03-10.json');
  });

  it('exports the complete payload as JSON and CSVs with a byte order mark', () => {
    const json = buildExport(data, 'complete');
    expect(json.mimeType).toBe('application/json');
    expect(JSON.parse(json.content)).toEqual(data);
    const csv = buildExport(data, 'top-tweets');
    expect(csv.mimeType).toBe('text/csv;charset=utf-8');
    expect(csv.content.startsWith('\uFEFFrank,')).toBe(true);
  });
});

describe('downloadFile', () => {
  // The browser's two object-URL functions are replaced for the test, to see what they were given.
  const { createObjectURL, revokeObjectURL } = URL;
  afterEach(() => {
    vi.useRealTimers();
    URL.createObjectURL = createObjectURL;
    URL.revokeObjectURL = revokeObjectURL;
  });

  it('hands a Blob to the browser through a temporary link and object URL', async () => {
    vi.useFakeTimers();
    const blobs: Blob[] = [];
    URL.createObjectURL = vi.fn((blob: Blob) => {
      blobs.push(blob);
      return 'blob:perch/1';
    });
    const revoke = vi.fn();
    URL.revokeObjectURL = revoke;
    const clicks: HTMLAnchorElement[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      clicks.push(this);
    });

    downloadFile('perch.csv', 'a,b\r\n', 'text/csv;charset=utf-8');

    expect(click).toHaveBeenCalledTimes(1);
    expect(clicks[0]?.download).toBe('perch.csv');
    expect(clicks[0]?.href).toBe('blob:perch/1');
    expect(clicks[0]?.isConnected).toBe(false);
    expect(await blobs[0]?.text()).toBe('a,b\r\n');
    expect(blobs[0]?.type).toBe('text/csv;charset=utf-8');
    expect(revoke).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1_000);
    expect(revoke).toHaveBeenCalledWith('blob:perch/1');
  });
});
