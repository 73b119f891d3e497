import { describe, expect, it } from 'vitest';
import type { SecurityEvent } from '@perch/shared';
import { csvCell, securityEventsCsv, securityExportFileName } from './security-export.js';

describe('csvCell', () => {
  it('leaves plain text and numbers as they are; null is empty', () => {
    expect(csvCell('login_success')).toBe('login_success');
    expect(csvCell(42)).toBe('42');
    expect(csvCell(null)).toBe('');
    expect(csvCell('')).toBe('');
  });

  it('quotes commas, quotes and line breaks, doubling quotes (RFC 4180)', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('one\ntwo')).toBe('"one\ntwo"');
    expect(csvCell('one\r\ntwo')).toBe('"one\r\ntwo"');
  });

  it('defuses cells a spreadsheet would run as a formula', () => {
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('-1')).toBe("'-1");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\t=1')).toBe("'\t=1");
    expect(csvCell('=HYPERLINK("x","y")')).toBe(`"'=HYPERLINK(""x"",""y"")"`);
    expect(csvCell('a=b')).toBe('a=b');
  });
});

describe('securityEventsCsv', () => {
  it('writes the header and one CRLF line per event', () => {
    const event: SecurityEvent = {
      id: 7,
      eventType: 'incident_reported',
      severity: 'high',
      description: 'Saw, "this"',
      timestamp: '2026-11-01T12:00:00.000Z',
      ip: '10.0.0.1',
      userAgent: null,
      userId: 3,
      actor: null,
    };
    expect(securityEventsCsv([event])).toBe(
      'id,timestamp,eventType,severity,description,ip,userAgent,userId,actor\r\n' +
        '7,2026-11-01T12:00:00.000Z,incident_reported,high,"Saw, ""this""",10.0.0.1,,3,\r\n',
    );
    expect(securityEventsCsv([])).toBe(
      'id,timestamp,eventType,severity,description,ip,userAgent,userId,actor\r\n',
    );
  });
});

describe('securityExportFileName', () => {
  it('names the file after the UTC day of the export', () => {
    expect(securityExportFileName('2026-11-01T23:59:59.000Z', 'csv')).toBe(
      'perch-security-2026-11-01.csv',
    );
    expect(securityExportFileName('2026-11-01T00:00:00.000Z', 'json')).toBe(
      'perch-security-2026-11-01.json',
    );
  });
});
