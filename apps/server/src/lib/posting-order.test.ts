import { describe, expect, it } from 'vitest';
import { comparePostIds, comparePostingOrder } from './posting-order.js';

describe('posting order', () => {
  it('orders post ids by value, never as text', () => {
    const cases: [string, string, number][] = [
      ['999999999999999999', '1000000000000000000', -1],
      ['1000000000000000000', '999999999999999999', 1],
      ['1000000000000000000', '1000000000000000001', -1],
      ['9', '10', -1],
      ['1524796546306478083', '1524796546306478083', 0],
    ];
    for (const [a, b, sign] of cases)
      expect(Math.sign(comparePostIds(a, b)), `${a} vs ${b}`).toBe(sign);
  });

  it('puts earlier posts first, and posts of one second by id', () => {
    const at = (createdAt: string, id: string) => ({ createdAt, id });
    const second = '2026-01-01T12:00:00.000Z';
    const posted = [
      at('2026-01-01T11:59:59.000Z', '1000000000000000005'),
      at(second, '999999999999999999'),
      at(second, '1000000000000000000'),
      at(second, '1000000000000000001'),
      at('2026-01-01T12:00:01.000Z', '999999999999999990'),
    ];
    // Stored or listed newest first, as sources hand them over.
    expect([...posted].reverse().sort(comparePostingOrder)).toEqual(posted);
  });
});
