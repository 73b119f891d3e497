import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Db } from '../../db/index.js';
import type { Severity } from '../../db/types.js';
import { AppError } from '../../lib/errors.js';
import { isApiRoute } from '../auth/auth.plugin.js';
import { sha256Hex } from '../../lib/tokens.js';
import { recordSecurityEvent } from '../auth/security-events.repository.js';
import { liveSessionUserId } from './security-sessions.repository.js';

/** At most this many refusal events per (IP, type) per minute; the rest are not written. */
export const REFUSAL_EVENTS_PER_MINUTE = 10;
const MINUTE_MS = 60_000;
/** Past this many tracked (IP, type) pairs, the ones whose minute is over are forgotten. */
const MAX_TRACKED = 10_000;

/**
 * Counts refusal events per (IP, type) in a one-minute window that starts at the first one, so a
 * flood of refused requests writes a bounded number of rows. In memory: per process, and reset
 * by a restart, which is fine for a cap on writes.
 */
export class RefusalThrottle {
  private readonly windows = new Map<string, { startedAt: number; count: number }>();

  constructor(private readonly perMinute = REFUSAL_EVENTS_PER_MINUTE) {}

  /** True when this refusal may be recorded (and counts it). */
  allow(ip: string, type: string, now = Date.now()): boolean {
    const key = `${type} ${ip}`;
    let window = this.windows.get(key);
    if (!window || now - window.startedAt >= MINUTE_MS) {
      if (this.windows.size >= MAX_TRACKED) this.forgetEnded(now);
      window = { startedAt: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    return window.count <= this.perMinute;
  }

  private forgetEnded(now: number): void {
    for (const [key, window] of this.windows) {
      if (now - window.startedAt >= MINUTE_MS) this.windows.delete(key);
    }
    if (this.windows.size >= MAX_TRACKED) this.windows.clear();
  }
}

interface Refusal {
  type: 'csrf_refused' | 'rate_limited';
  severity: Severity;
  description: string;
}

function refusalOf(request: FastifyRequest, status: number, csrfRefused: boolean): Refusal | null {
  if (!csrfRefused && status !== 429) return null;
  const path = (request.url.split('?')[0] ?? '').slice(0, 200);
  if (csrfRefused) {
    return {
      type: 'csrf_refused',
      severity: 'medium',
      description: `Refused ${request.method} ${path}: missing or wrong CSRF token`,
    };
  }
  return {
    type: 'rate_limited',
    severity: 'low',
    description: `Too many requests: ${request.method} ${path}`,
  };
}

/**
 * Records every CSRF refusal ('csrf_refused', medium) and every 429 the API sends
 * ('rate_limited', low) in the security log, with the IP and user agent, and the account when
 * the request carried a live session. The CSRF check runs before the session is resolved, so
 * for those the cookie is looked up here. Registered beside the auth plugin, so it sees every
 * API route; written before the response leaves, so the event is there once the client has
 * its answer. A failure to record is logged, never turned into a failed response.
 */
export const refusalEventsPlugin = fp(
  async (app: FastifyInstance, { db }: { db: Db }) => {
    const throttle = new RefusalThrottle();
    const csrfRefusals = new WeakSet<FastifyRequest>();

    app.addHook('onError', async (request, _reply, error) => {
      if (error instanceof AppError && error.code === 'CSRF_INVALID') csrfRefusals.add(request);
    });

    // Callback style: answers that refuse nothing pass straight through.
    app.addHook('onSend', (request, reply, payload, done) => {
      if (!isApiRoute(request)) return done(null, payload);
      const refusal = refusalOf(request, reply.statusCode, csrfRefusals.has(request));
      if (!refusal || !throttle.allow(request.ip, refusal.type)) return done(null, payload);
      recordRefusal(db, request, refusal).then(() => done(null, payload));
    });
  },
  { name: 'perch-refusal-events', dependencies: ['perch-auth'] },
);

/** Writes the refusal's security event; a failure is logged, never turned into a failed answer. */
async function recordRefusal(db: Db, request: FastifyRequest, refusal: Refusal): Promise<void> {
  try {
    const now = new Date().toISOString();
    await recordSecurityEvent(db.db, {
      userId: await requestUserId(db, request, now),
      type: refusal.type,
      severity: refusal.severity,
      description: refusal.description,
      ip: request.ip,
      userAgent: request.headers['user-agent'] ?? null,
      at: now,
    });
  } catch (error) {
    request.log.error({ err: error }, 'could not record a refused request');
  }
}

async function requestUserId(db: Db, request: FastifyRequest, now: string): Promise<number | null> {
  if (request.auth) return request.auth.user.id;
  const token = request.cookies[request.server.authCookies.session];
  if (!token || token.length > 128) return null;
  return (await liveSessionUserId(db.db, sha256Hex(token), now)) ?? null;
}
