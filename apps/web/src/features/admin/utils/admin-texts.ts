import {
  INVITATION_MAX_EXPIRY_DAYS,
  INVITATION_MAX_USES,
  roleLabel,
  type Role,
} from '@perch/shared';

/**
 * Words of the admin page that are not messages of the contract: section titles,
 * labels, hints and the texts of the panels this product adds. Outcomes, fallbacks and
 * confirmations are ADMIN_MESSAGES of @perch/shared.
 */
export const ADMIN_TEXTS = {
  pageTitle: 'Admin Dashboard',
  pageDescription: 'Users, handles, collectors and invitations of this Perch server.',

  usersTitle: (count: number | undefined) =>
    count === undefined ? 'Registered Users' : `Registered Users (${count})`,
  usersDescription: 'Select a user to see the handles they monitor.',
  noUsers: 'No registered users yet.',
  userHandlesTitle: 'Monitored Handles',
  userHandlesOf: (username: string, id: number) => `of ${username} (ID: ${id})`,
  selectUserHint: 'Select a user to see the handles they monitor.',
  roleOf: (username: string) => `Role of ${username}`,
  ownRoleLocked: 'Another super admin can change your own role.',
  changeRoleTitle: 'Change role',
  confirmRoleChange: (username: string, role: Role) =>
    `Make ${username} ${roleLabel(role)}? The new rights apply from their next request.`,
  changeRoleFailed: (username: string) => `Failed to change the role of ${username}.`,

  globalHandlesTitle: 'Global Handle Management',
  globalHandlesDescription: 'Every handle collected by this server, whoever monitors it.',
  refreshSystemHandles: 'Refresh System Handles',
  globalDelete: 'Global Delete',

  collectorsTitle: 'Collectors',
  collectorsDescription: 'One collector per handle: backfill first, then monitoring.',
  noProcesses: 'No collectors yet: they start when a user adds a handle.',
  collectorsElsewhere:
    'Collectors run in separate worker processes; these states are read from the database.',
  challengeLinkSuperAdmin: 'Enter the code in Settings',
  challengeHintAdmin: 'A super admin enters the code in Settings.',
  rateBudgetUnknown: 'no limit reported',
  stopFailed: (handle: string) => `Failed to stop the collector of @${handle}.`,
  startFailed: (handle: string) => `Failed to start the collector of @${handle}.`,
  rateBudget: (remaining: number, limit: number) => `${remaining} of ${limit} requests left`,

  invitationsTitle: 'Invitations',
  invitationsDescription: 'Registration needs an invitation code.',
  noInvitations: 'No invitations yet. Create one above and send its code.',
  loadInvitationsFailed: 'Failed to load invitations.',
  createInvitationFailed: 'Failed to create the invitation.',
  /** How an invitation is named once its code is gone: by its number. */
  invitationLabel: (id: number) => `invitation #${id}`,
  revokeInvitationFailed: (label: string) => `Failed to revoke ${label}.`,
  revokeTitle: 'Revoke invitation',
  confirmRevoke: (label: string) =>
    `Revoke ${label}? Nobody will be able to register with it any more.`,
  copyFailed: 'Could not copy to the clipboard. Select the code and copy it by hand.',
  newCodeRegion: 'New invitation code',
  newCodeTitle: (role: string) => `New invitation for ${role}: copy its code now`,
  newCodeOnce:
    'This is the only time the code is shown: Perch keeps no readable copy of it. Send it to the person you invite.',
  newCodeDone: 'Done',
  usesLabel: `Uses (1-${INVITATION_MAX_USES})`,
  expiryLabel: `Expires after days (1-${INVITATION_MAX_EXPIRY_DAYS})`,
  neverExpires: 'Never expires',
  revokeLocked: 'Only a super admin can revoke an admin invitation.',
  loadProcessesFailed: 'Failed to load collectors.',

  dataCleanupTitle: 'Data Cleanup per Handle',
  dataCleanupDescription:
    'Clears the collected tweets and snapshots of a handle; its collection starts over.',
  clearData: 'Clear Data',
  clearDataTitle: 'Clear data',
  searchHandles: 'Search handles',
  noMatchingHandles: (search: string) => `No handle matches "${search}".`,

  never: 'Never',
  none: '—',
} as const;
