import type {
  AdminInvitation,
  BackfillStatus,
  ProcessState,
  Role,
  SourceHealth,
} from '@perch/shared';

export interface Look {
  label: string;
  color: string;
}

export const ROLE_LOOK: Record<Role, Look> = {
  user: { label: 'User', color: 'gray' },
  admin: { label: 'Admin', color: 'blue' },
  superadmin: { label: 'Super admin', color: 'grape' },
};

export const PROCESS_STATE_LOOK: Record<ProcessState, Look> = {
  idle: { label: 'Idle', color: 'gray' },
  running: { label: 'Running', color: 'green' },
  paused: { label: 'Paused', color: 'yellow' },
  stopped: { label: 'Stopped', color: 'red' },
};

export const INVITATION_STATE_LOOK: Record<AdminInvitation['state'], Look> = {
  active: { label: 'Active', color: 'green' },
  used: { label: 'Used', color: 'gray' },
  expired: { label: 'Expired', color: 'orange' },
  revoked: { label: 'Revoked', color: 'red' },
};

export const SOURCE_HEALTH_LOOK: Record<SourceHealth, Look> = {
  ok: { label: 'Healthy', color: 'green' },
  degraded: { label: 'Degraded', color: 'orange' },
  paused: { label: 'Paused', color: 'yellow' },
};

export const SOURCE_NAME: Record<'demo' | 'x-api' | 'x-web', string> = {
  demo: 'Demo data',
  'x-api': 'X API',
  'x-web': 'X web accounts',
};

/** Green once the data is there, red on failure, blue while collecting, gray before. */
export function backfillColor(status: BackfillStatus): string {
  if (status === 'completed' || status === 'complete' || status === 'data_ready') return 'green';
  if (status === 'failed') return 'red';
  if (status === 'pending') return 'gray';
  return 'blue';
}
