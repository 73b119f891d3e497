/**
 * docs/spec-notes.md, Security: failed sign-ins above 10 are a threat (high), above 5 a medium
 * risk, and plain HTTP from another host is critical. The server computes the level the security
 * page shows with this shared rule.
 */
import { riskLevelOf } from '@perch/shared';
import { describe, expect, it } from 'vitest';

const overHttps = { secureTransport: true, loopback: false };

describe('risk level', () => {
  it('is medium above 5 failed sign-ins and high above 10', () => {
    expect(riskLevelOf({ failedLogins: 5, ...overHttps })).toBe('low');
    expect(riskLevelOf({ failedLogins: 6, ...overHttps })).toBe('medium');
    expect(riskLevelOf({ failedLogins: 10, ...overHttps })).toBe('medium');
    expect(riskLevelOf({ failedLogins: 11, ...overHttps })).toBe('high');
  });

  it('is critical over plain HTTP from another host, whatever the sign-ins', () => {
    expect(riskLevelOf({ failedLogins: 0, secureTransport: false, loopback: false })).toBe(
      'critical',
    );
    expect(riskLevelOf({ failedLogins: 0, secureTransport: false, loopback: true })).toBe('low');
  });
});
