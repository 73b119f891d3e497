import { describe, expect, it } from 'vitest';
import {
  aggregateDescription,
  aggregateWindow,
  aggregatedCount,
  nextWrite,
  withIp,
  type BoundedWrite,
  type WindowRow,
} from './event-aggregation.js';

const single = (id: number): WindowRow => ({ id, aggregated: null });

describe('nextWrite', () => {
  const cases: [string, WindowRow[], BoundedWrite][] = [
    ['the first event of a window', [], { write: 'event' }],
    ['the second', [single(1)], { write: 'event' }],
    ['the third', [single(1), single(2)], { write: 'event' }],
    ['the fourth starts the aggregate', [single(1), single(2), single(3)], { write: 'aggregate' }],
    [
      'the fifth counts in it',
      [single(1), single(2), single(3), { id: 4, aggregated: 1 }],
      { write: 'count', id: 4, count: 2 },
    ],
    [
      'a later one counts in it too',
      [single(1), single(2), single(3), { id: 4, aggregated: 196 }],
      { write: 'count', id: 4, count: 197 },
    ],
    [
      'an aggregate counts even when fewer single events are left',
      [{ id: 9, aggregated: 5 }],
      { write: 'count', id: 9, count: 6 },
    ],
  ];
  it.each(cases)('%s', (_name, rows, expected) => {
    expect(nextWrite(rows)).toEqual(expected);
  });
});

describe('aggregateWindow', () => {
  it('cuts time into fixed 5-minute windows in UTC', () => {
    expect(aggregateWindow(Date.parse('2026-03-01T10:04:59.999Z'))).toEqual({
      from: '2026-03-01T10:00:00.000Z',
      to: '2026-03-01T10:05:00.000Z',
    });
    expect(aggregateWindow(Date.parse('2026-03-01T10:05:00.000Z'))).toEqual({
      from: '2026-03-01T10:05:00.000Z',
      to: '2026-03-01T10:10:00.000Z',
    });
  });
});

describe('aggregatedCount', () => {
  it.each([
    ['{"aggregated":12}', 12],
    ['{"login":"alice"}', null],
    ['{"aggregated":"12"}', null],
    ['{"aggregated":0}', null],
    ['not json', null],
    ['null', null],
  ])('%s -> %s', (metadata, expected) => {
    expect(aggregatedCount(metadata)).toBe(expected);
  });
});

describe('aggregate words and addresses', () => {
  it('says how many more events of which kind', () => {
    expect(aggregateDescription('login_locked', 12)).toBe(
      '12 more locked sign-in attempts in these 5 minutes (the first 3 are recorded one by one).',
    );
    expect(aggregateDescription('login_failed', 1)).toMatch(/^1 more failed sign-ins/);
  });

  it('lists up to 10 distinct addresses', () => {
    expect(withIp(['10.0.0.1'], '10.0.0.1')).toEqual(['10.0.0.1']);
    expect(withIp(['10.0.0.1'], '10.0.0.2')).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(withIp([], null)).toEqual([]);
    const ten = Array.from({ length: 10 }, (_, i) => `10.0.0.${i}`);
    expect(withIp(ten, '10.0.1.1')).toEqual(ten);
  });
});
