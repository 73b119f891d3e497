import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/index.js';
import type { Severity } from '../../db/types.js';
import { currentAuth } from '../auth/auth.plugin.js';
import { recordSecurityEvent } from '../auth/security-events.repository.js';

export interface AdminAction {
  /** e.g. 'admin_handle_deleted', 'role_changed'. */
  type: string;
  severity: Severity;
  description: string;
  /** The account acted on, when there is one; null records a system-wide event. */
  userId?: number | null;
  metadata?: Record<string, unknown>;
}

/** Records an admin action in the security log, with the acting admin, their IP and browser. */
export async function logAdminAction(
  db: Db,
  request: FastifyRequest,
  action: AdminAction,
): Promise<void> {
  const actor = currentAuth(request).user;
  await recordSecurityEvent(db.db, {
    userId: action.userId ?? null,
    actorId: actor.id,
    type: action.type,
    severity: action.severity,
    description: action.description,
    ip: request.ip,
    userAgent: request.headers['user-agent'] ?? null,
    metadata: { actor: actor.username, ...action.metadata },
    at: new Date().toISOString(),
  });
}
