import type { AlertFiring } from '@perch/shared';
import { csvCell } from '../security/security-export.js';

/** Formats of GET /alerts/export. */
export const ALERT_EXPORT_FORMATS = ['json', 'csv'] as const;
export type AlertExportFormat = (typeof ALERT_EXPORT_FORMATS)[number];

/**
 * The CSV columns, in order: one row per firing. `kind` is the rule's type and `numbers` the
 * firing's numbers as JSON, so a spreadsheet keeps one row per firing whatever the rule watched.
 */
export const ALERT_EXPORT_COLUMNS = [
  'id',
  'fired_at',
  'rule_id',
  'rule_name',
  'handle',
  'kind',
  'summary',
  'tweet_id',
  'tweet_url',
  'numbers',
] as const;

type ExportColumn = (typeof ALERT_EXPORT_COLUMNS)[number];

function cellOf(firing: AlertFiring, column: ExportColumn): string | number | null {
  if (column === 'kind') return firing.kind.type;
  if (column === 'numbers') return JSON.stringify(firing.numbers);
  return firing[column];
}

/**
 * The firings as CSV: a header, then one row per firing, CRLF lines. Cells go through the
 * security export's `csvCell`, so a rule name such as `=HYPERLINK(...)` stays text.
 */
export function alertFiringsCsv(firings: readonly AlertFiring[]): string {
  const lines = [
    ALERT_EXPORT_COLUMNS.join(','),
    ...firings.map((firing) =>
      ALERT_EXPORT_COLUMNS.map((column) => csvCell(cellOf(firing, column))).join(','),
    ),
  ];
  return `${lines.join('\r\n')}\r\n`;
}

/** e.g. perch-alerts-2026-11-01.csv (the day of the export, UTC). */
export function alertsExportFileName(exportedAt: string, format: AlertExportFormat): string {
  return `perch-alerts-${exportedAt.slice(0, 10)}.${format}`;
}
