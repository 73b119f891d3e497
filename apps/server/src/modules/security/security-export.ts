import { SECURITY_EXPORT_COLUMNS, type SecurityEvent } from '@perch/shared';

/**
 * Cells a spreadsheet would read as a formula (OWASP "CSV injection"): `=`, `+`, `-`, `@`, and
 * tab or carriage return, which some spreadsheets skip before looking for one.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV cell (RFC 4180): a cell that could start a formula gets a leading `'`, so a
 * spreadsheet shows it as text; a cell with a comma, a quote or a line break is quoted, its
 * quotes doubled. Null is the empty cell.
 */
export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The events as CSV: a header of SECURITY_EXPORT_COLUMNS, then one row per event, CRLF lines. */
export function securityEventsCsv(events: SecurityEvent[]): string {
  const lines = [
    SECURITY_EXPORT_COLUMNS.join(','),
    ...events.map((event) =>
      SECURITY_EXPORT_COLUMNS.map((column) => csvCell(event[column])).join(','),
    ),
  ];
  return `${lines.join('\r\n')}\r\n`;
}

/** e.g. perch-security-2026-11-01.csv (the day of the export, UTC). */
export function securityExportFileName(exportedAt: string, format: 'json' | 'csv'): string {
  return `perch-security-${exportedAt.slice(0, 10)}.${format}`;
}
