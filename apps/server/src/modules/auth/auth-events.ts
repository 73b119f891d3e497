import type { FastifyRequest } from 'fastify';
import { DEVICE_INFO_MAX_LENGTH, type SecurityEventType, type Severity } from '@perch/shared';
import type { Db } from '../../db/index.js';
import { recordBoundedEvent } from './bounded-events.js';
import { AGGREGATED_EVENT_TYPES } from './event-aggregation.js';
import { recordSecurityEvent, type NewSecurityEvent } from './security-events.repository.js';

/** Where a request came from: the IP and the browser's user agent (cut to 100 characters). */
export interface ClientInfo {
  ip: string;
  userAgent: string | null;
}

/** The client of a request; `deviceUserAgent` (the sign-in form's device info) wins. */
export function clientOf(request: FastifyRequest, deviceUserAgent?: string): ClientInfo {
  const agent = deviceUserAgent ?? request.headers['user-agent'] ?? null;
  return { ip: request.ip, userAgent: agent ? agent.slice(0, DEVICE_INFO_MAX_LENGTH) : null };
}

export interface AuthEvent {
  type: SecurityEventType;
  severity: Severity;
  description: string;
  /** The account it concerns; null when the name given matched none. */
  userId: number | null;
  metadata?: Record<string, unknown>;
}

/**
 * Records a sign-in, sign-out, password or two-factor event in the security log, with the IP and
 * browser it came from. Never pass a password or a code in it. Failed and locked sign-ins and
 * wrong codes, which anybody can cause, are bounded per account (event-aggregation.ts).
 */
export async function recordAuthEvent(
  db: Db,
  client: ClientInfo | null,
  event: AuthEvent,
): Promise<void> {
  const row: NewSecurityEvent = {
    userId: event.userId,
    type: event.type,
    severity: event.severity,
    description: event.description,
    ip: client?.ip ?? null,
    userAgent: client?.userAgent ?? null,
    metadata: event.metadata,
    at: new Date().toISOString(),
  };
  if (AGGREGATED_EVENT_TYPES.has(event.type)) await recordBoundedEvent(db, row);
  else await recordSecurityEvent(db.db, row);
}

/** Records a wrong two-factor code given for `purpose` (in `metadata`) in the security log. */
export function recordWrongCode(
  db: Db,
  client: ClientInfo,
  userId: number,
  description: string,
  metadata: { purpose: string } & Record<string, unknown>,
): Promise<void> {
  return recordAuthEvent(db, client, {
    type: 'two_factor_failed',
    severity: 'medium',
    description,
    userId,
    metadata,
  });
}
