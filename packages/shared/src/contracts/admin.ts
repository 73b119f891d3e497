import { z } from 'zod';
import { ROLES } from '../constants.js';
import { BACKFILL_STATUSES } from './handles.js';

/**
 * The admin area: users and their handles, every handle in the system, collectors, invitations,
 * data clean-up and the collector account's verification challenge (docs/spec-notes.md:
 * Admin screen, Settings rules, Field rules, Roles).
 */

/** Challenge status poll and the re-fetch after a submit. */
export const CHALLENGE_POLL_MS = 30_000;
export const CHALLENGE_REFETCH_AFTER_SUBMIT_MS = 5_000;

/** Invitation limits (ours). */
export const INVITATION_MAX_USES = 100;
export const INVITATION_MAX_EXPIRY_DAYS = 365;
export const INVITATION_DEFAULT_EXPIRY_DAYS = 7;

/**
 * Every human text of the admin area. The spec's own (docs/spec-notes.md, Error texts) and the few
 * this product adds (marked "ours"). Server and web show the same words.
 */
export const ADMIN_MESSAGES = {
  // Access (ours for admin; the super admin text is the spec's).
  adminRequired: 'Access Denied. Admin privileges required.',
  superAdminRequired: 'Access Denied. Super admin privileges required.',

  // Missing ids.
  userAndHandleIdRequired: 'User ID and Handle ID are required.',
  userIdRequired: 'User ID is required to fetch handles.',
  handleIdRequiredToDelete: 'Handle ID is required to delete a handle.',
  handleIdRequiredToClear: 'Handle ID is required to clear data.',
  handleIdRequiredToStop: 'Handle ID is required to stop a process.',
  handleIdRequiredToStart: 'Handle ID is required to start a process.',
  userIdRequiredToChangeRole: 'User ID is required to change a role.',
  invitationIdRequired: 'Invitation ID is required to revoke an invitation.',
  verificationCodeRequired: 'Verification code is required and must be a non-empty string.',

  // Not found and conflicts (ours).
  userNotFound: 'User not found.',
  handleNotFound: 'Handle not found.',
  userDoesNotFollow: 'This user does not monitor that handle.',
  invitationNotFound: 'Invitation not found.',
  roleInvalid: 'Role must be user, admin or superadmin.',
  lastSuperAdmin: 'The system must keep at least one super admin.',
  invitationRoleForbidden: 'Only a super admin can invite admins.',
  invitationUsesInvalid: `Uses must be a whole number from 1 to ${INVITATION_MAX_USES}.`,
  invitationExpiryInvalid: `Expiry must be a whole number of days from 1 to ${INVITATION_MAX_EXPIRY_DAYS}, or none.`,
  noChallengePending: 'No verification challenge is waiting for a code.',

  // Successes (the server sends them, the web shows them).
  handleDeleted: (handle: string) => `Successfully deleted handle @${handle}.`,
  handleRemovedFromUser: (handle: string) => `Successfully removed handle @${handle} from user.`,
  handleDataCleared: (handle: string) =>
    `Successfully cleared data for handle @${handle}. Scraper will re-initialize for it.`,
  // Ours.
  processStopped: (handle: string) =>
    `Collection stopped for @${handle}. Work in progress was saved.`,
  processStarted: (handle: string) => `Collection resumed for @${handle}.`,
  processAlreadyStopped: (handle: string) => `Collection for @${handle} is already stopped.`,
  processAlreadyRunning: (handle: string) => `Collection for @${handle} is already running.`,
  roleChanged: (username: string, role: string) => `${username} is now ${roleLabel(role)}.`,
  invitationCreated: 'Invitation created.',
  invitationRevoked: 'Invitation revoked.',
  codeSubmitted: 'Verification code submitted. Checking it with the collector account...',
  codeAccepted: 'Verification complete. Collection has resumed.',
  codeRejected: 'The verification code was not accepted. Please enter the newest code.',
  collectionPausedByChallenge:
    'Collection is paused: the collector account is waiting for a verification code.',
  collectionGoesOn: 'Collection goes on with the other collector accounts meanwhile.',

  // Client fallbacks.
  fetchUsersFailed: 'Failed to fetch users',
  fetchUserHandlesFailed: (id: number | string) => `Failed to fetch handles for user ${id}`,
  fetchChallengeFailed: 'Failed to fetch Twitter challenge status',
  submitChallengeFailed: 'Failed to submit Twitter challenge code',
  globalDeleteFailed: (id: number | string) => `Failed to globally delete handle ${id}`,
  fetchAllHandlesFailed: 'Failed to fetch all system handles',
  fetchProcessesFailed: 'Failed to fetch active processes',
  stopProcessFailed: (id: number | string) => `Failed to stop process for handle ${id}`,
  startProcessFailed: (id: number | string) => `Failed to start/resume process for handle ${id}`,
  clearDataFailed: (id: number | string) => `Failed to clear data for handle ${id}`,

  // UI texts.
  loadUsersFailed: 'Failed to load users.',
  loadUserHandlesFailed: (id: number | string) => `Failed to load handles for user ${id}.`,
  loadSystemHandlesFailed: 'Failed to load system handles.',
  deleteHandleFailed: (handle: string) => `Failed to delete handle @${handle}.`,
  removeHandleFromUserFailed: (handle: string) => `Failed to remove handle @${handle} from user.`,
  fetchHandlesFailed: 'Failed to fetch handles.',
  fetchChallengeStatusFailed: 'Failed to fetch Twitter challenge status.',
  submitCodeFailed: 'Failed to submit verification code.',
  clearDataForHandleFailed: (handle: string) => `Failed to clear data for @${handle}.`,
  noUserHandles: 'No handles monitored by this user.',
  noSystemHandles: 'No handles currently associated with any user.',

  // Confirmations.
  confirmGlobalDelete: (handle: string, id: number) =>
    `Are you sure you want to globally delete @${handle} (ID: ${id})? This will stop its scraper and remove it for all users.`,
  confirmRemoveFromUser: (handle: string, handleId: number, userId: number) =>
    `Remove @${handle} (ID: ${handleId}) from user ${userId}? They will stop receiving its tweets and analytics.`,
  confirmClearData: (handle: string) =>
    `Clear all collected tweets and snapshots of @${handle}? This cannot be undone. Collection starts again from the beginning.`,
} as const;

export function roleLabel(role: string): string {
  if (role === 'superadmin') return 'a super admin';
  if (role === 'admin') return 'an admin';
  return 'a user';
}

const positiveId = (message: string) =>
  z.coerce.number({ error: message }).int(message).positive(message).max(2_147_483_647, message);

// ---------------------------------------------------------------- params and bodies

export const adminUserIdParamSchema = z.object({ id: positiveId(ADMIN_MESSAGES.userIdRequired) });
export const adminUserHandleParamSchema = z.object({
  id: positiveId(ADMIN_MESSAGES.userAndHandleIdRequired),
  handleId: positiveId(ADMIN_MESSAGES.userAndHandleIdRequired),
});
export const adminHandleIdParamSchema = z.object({
  id: positiveId(ADMIN_MESSAGES.handleIdRequiredToDelete),
});
export const adminClearDataParamSchema = z.object({
  id: positiveId(ADMIN_MESSAGES.handleIdRequiredToClear),
});
export const adminRoleParamSchema = z.object({
  id: positiveId(ADMIN_MESSAGES.userIdRequiredToChangeRole),
});
export const adminInvitationIdParamSchema = z.object({
  id: positiveId(ADMIN_MESSAGES.invitationIdRequired),
});

export const processStopRequestSchema = z.object(
  { handle_id: positiveId(ADMIN_MESSAGES.handleIdRequiredToStop) },
  { error: ADMIN_MESSAGES.handleIdRequiredToStop },
);
export const processStartRequestSchema = z.object(
  { handle_id: positiveId(ADMIN_MESSAGES.handleIdRequiredToStart) },
  { error: ADMIN_MESSAGES.handleIdRequiredToStart },
);
export type ProcessRequest = z.input<typeof processStopRequestSchema>;

export const changeRoleRequestSchema = z.object(
  { role: z.enum(ROLES, { error: ADMIN_MESSAGES.roleInvalid }) },
  { error: ADMIN_MESSAGES.roleInvalid },
);
export type ChangeRoleRequest = z.infer<typeof changeRoleRequestSchema>;

export const createInvitationRequestSchema = z.object(
  {
    role: z.enum(ROLES, { error: ADMIN_MESSAGES.roleInvalid }).default('user'),
    max_uses: z
      .number({ error: ADMIN_MESSAGES.invitationUsesInvalid })
      .int(ADMIN_MESSAGES.invitationUsesInvalid)
      .min(1, ADMIN_MESSAGES.invitationUsesInvalid)
      .max(INVITATION_MAX_USES, ADMIN_MESSAGES.invitationUsesInvalid)
      .default(1),
    /** Days until it expires; null never expires. */
    expires_in_days: z
      .number({ error: ADMIN_MESSAGES.invitationExpiryInvalid })
      .int(ADMIN_MESSAGES.invitationExpiryInvalid)
      .min(1, ADMIN_MESSAGES.invitationExpiryInvalid)
      .max(INVITATION_MAX_EXPIRY_DAYS, ADMIN_MESSAGES.invitationExpiryInvalid)
      .nullable()
      .default(INVITATION_DEFAULT_EXPIRY_DAYS),
  },
  { error: ADMIN_MESSAGES.roleInvalid },
);
export type CreateInvitationRequest = z.input<typeof createInvitationRequestSchema>;

export const submitChallengeCodeRequestSchema = z.object(
  {
    verification_code: z
      .string({ error: ADMIN_MESSAGES.verificationCodeRequired })
      .trim()
      .min(1, ADMIN_MESSAGES.verificationCodeRequired)
      .max(64, ADMIN_MESSAGES.verificationCodeRequired),
    /** x-web: the account the code is for (default: the one waiting longest). */
    account_id: z.number().int().positive().optional(),
  },
  { error: ADMIN_MESSAGES.verificationCodeRequired },
);
export type SubmitChallengeCodeRequest = z.input<typeof submitChallengeCodeRequestSchema>;

// ---------------------------------------------------------------- answers

export const adminUserSchema = z.object({
  id: z.number().int(),
  username: z.string(),
  email: z.string(),
  created_at: z.string(),
  role: z.enum(ROLES),
  isAdmin: z.boolean(),
  isSuperAdmin: z.boolean(),
  last_login_at: z.string().nullable(),
  /** Newest activity of any of the user's sessions (requests and heartbeats). */
  last_active_at: z.string().nullable(),
  handles_count: z.number().int(),
});
export type AdminUser = z.infer<typeof adminUserSchema>;
export const adminUsersResponseSchema = z.object({ users: z.array(adminUserSchema) });

/** A handle a given user follows, plus that user's link. */
export const adminUserHandleSchema = z.object({
  id: z.number().int(),
  handle: z.string(),
  created_at: z.string(),
  added_at: z.string(),
  backfill_days: z.number().int(),
  backfill_status: z.enum(BACKFILL_STATUSES),
});
export type AdminUserHandle = z.infer<typeof adminUserHandleSchema>;
export const adminUserHandlesResponseSchema = z.object({
  user_id: z.number().int(),
  handles: z.array(adminUserHandleSchema),
});

/** One handle of the system, whoever follows it. */
export const adminHandleSchema = z.object({
  id: z.number().int(),
  handle: z.string(),
  created_at: z.string(),
  followers_count: z.number().int().nullable(),
  status: z.enum(BACKFILL_STATUSES),
  backfill_progress: z.number(),
  tweets: z.number().int(),
  /** Users who follow it. */
  users_count: z.number().int(),
  /** Stopped by an admin. */
  stopped: z.boolean(),
  last_error: z.string().nullable(),
});
export type AdminHandle = z.infer<typeof adminHandleSchema>;
export const adminHandlesResponseSchema = z.object({ handles: z.array(adminHandleSchema) });

export const PROCESS_STATES = ['idle', 'running', 'paused', 'stopped'] as const;
export type ProcessState = (typeof PROCESS_STATES)[number];

export const rateBudgetSchema = z.object({
  limit: z.number().int().nullable(),
  remaining: z.number().int().nullable(),
  resetAt: z.string().nullable(),
});

export const CHALLENGE_STATUSES = ['IDLE', 'AWAITING_INPUT', 'CODE_SUBMITTED'] as const;
export type ChallengeState = (typeof CHALLENGE_STATUSES)[number];

export const challengeStatusSchema = z.object({
  status: z.enum(CHALLENGE_STATUSES),
  challenge_type: z.string().nullable(),
  challenge_details: z.string().nullable(),
  last_challenge_at: z.string().nullable(),
  /**
   * x-web: the collector account whose sign-in waits (username, id) and the step that waits
   * (LoginAcid); absent for the demo source's single account.
   */
  account: z.string().nullable().optional(),
  account_id: z.number().int().nullable().optional(),
  step: z.string().nullable().optional(),
  /** x-web: false while other accounts of the pool collect meanwhile. */
  collection_paused: z.boolean().optional(),
});
export type ChallengeStatus = z.infer<typeof challengeStatusSchema>;

/** Each handle's collector: idle, running, paused or stopped. */
export const adminProcessSchema = z.object({
  handle_id: z.number().int(),
  handle: z.string(),
  state: z.enum(PROCESS_STATES),
  /** Why it is paused or stopped, in words; null otherwise. */
  state_reason: z.string().nullable(),
  /** The kind of work: a backfill still walking back, or monitoring. */
  job: z.enum(['backfill', 'monitor']),
  backfill_status: z.enum(BACKFILL_STATUSES),
  backfill_progress: z.number(),
  last_poll_at: z.string().nullable(),
  next_poll_at: z.string().nullable(),
  last_error: z.string().nullable(),
  tweets_collected: z.number().int(),
  users_count: z.number().int(),
});
export type AdminProcess = z.infer<typeof adminProcessSchema>;

export const SOURCE_HEALTH = ['ok', 'degraded', 'paused'] as const;
export type SourceHealth = (typeof SOURCE_HEALTH)[number];

export const adminProcessesResponseSchema = z.object({
  source: z.object({
    name: z.enum(['demo', 'x-api', 'x-web']),
    /** ok; degraded when recent collection errors were seen; paused while a challenge waits. */
    health: z.enum(SOURCE_HEALTH),
    health_reason: z.string().nullable(),
    rate_budget: rateBudgetSchema,
    challenge: challengeStatusSchema,
    /** False when this API process runs no collector (scaled mode reads the database only). */
    collector_in_process: z.boolean(),
  }),
  processes: z.array(adminProcessSchema),
});
export type AdminProcesses = z.infer<typeof adminProcessesResponseSchema>;
export const adminProcessResponseSchema = z.object({ process: adminProcessSchema });

export const INVITATION_STATES = ['active', 'used', 'expired', 'revoked'] as const;
/** An invitation as listed: never its code, which only the answer that made it carries. */
export const adminInvitationSchema = z.object({
  id: z.number().int(),
  role: z.enum(ROLES),
  max_uses: z.number().int(),
  uses: z.number().int(),
  expires_at: z.string().nullable(),
  created_at: z.string(),
  /** Username of the creator; null for the first-start or CLI invitation. */
  created_by: z.string().nullable(),
  revoked_at: z.string().nullable(),
  state: z.enum(INVITATION_STATES),
});
export type AdminInvitation = z.infer<typeof adminInvitationSchema>;
export const adminInvitationsResponseSchema = z.object({
  invitations: z.array(adminInvitationSchema),
});
export const adminInvitationResponseSchema = z.object({ invitation: adminInvitationSchema });
/** A new invitation with its code: shown this once, since the server keeps only its hash. */
export const adminCreatedInvitationSchema = adminInvitationSchema.extend({ code: z.string() });
export type AdminCreatedInvitation = z.infer<typeof adminCreatedInvitationSchema>;
export const adminCreatedInvitationResponseSchema = z.object({
  invitation: adminCreatedInvitationSchema,
});

export const adminUserResponseSchema = z.object({ user: adminUserSchema });
export const adminHandleResponseSchema = z.object({ handle: adminHandleSchema });
export const challengeStatusResponseSchema = challengeStatusSchema;
