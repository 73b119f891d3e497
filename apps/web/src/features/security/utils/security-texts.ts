import type { SecurityTimeRange } from '@perch/shared';

/**
 * Words of the security page that are not messages of the contract: titles, labels, hints,
 * empty states and the fallbacks of the cards the spec gives no text for. Outcomes the server
 * words are SECURITY_MESSAGES of @perch/shared.
 */
export const SECURITY_TEXTS = {
  pageTitle: 'Security Dashboard',
  pageDescription:
    'Sign-ins, sessions and security events of your account, two-factor sign-in and alerts.',
  cancel: 'Cancel',

  statsTitle: 'Overview',
  statsDescription: 'Refreshed every minute.',
  timeRangeLabel: 'Time range',
  timeRanges: { '24h': '24 hours', '7d': '7 days', '30d': '30 days' } satisfies Record<
    SecurityTimeRange,
    string
  >,
  failedLogins: 'Failed sign-ins',
  successfulLogins: 'Successful sign-ins',
  activeSessions: 'Active sessions',
  blockedRequests: 'Blocked requests',
  riskLevel: 'Risk level',
  noRiskReasons: 'Nothing unusual in this period.',
  statsUnavailable: 'This server keeps no security statistics.',
  loadStatsFailed: 'Failed to load security statistics',

  sessionsTitle: 'Sessions',
  sessionsDescription: 'Where your account is signed in right now.',
  noSessions: 'No active sessions.',
  loadSessionsFailed: 'Failed to load sessions',
  thisDevice: 'This device',
  unknownIp: 'Unknown IP',
  revoke: 'Revoke',
  revokeLabel: (device: string) => `Revoke the session on ${device}`,
  revokeTitle: 'Revoke session',
  confirmRevoke: (device: string, ip: string | null) =>
    `Sign out the session on ${device}${ip ? ` (${ip})` : ''}? That device will have to sign in again.`,
  revokeFailed: 'Failed to revoke the session.',
  revokeOthers: 'Sign out everywhere else',
  confirmRevokeOthers:
    'Sign out every other session of your account? Only this device stays signed in.',
  revokeOthersFailed: 'Failed to sign out the other sessions.',

  loginHistoryTitle: 'Sign-in history',
  loginHistoryDescription: 'The latest attempts to sign in to your account.',
  noLoginHistory: 'No sign-in attempts yet.',
  loadLoginHistoryFailed: 'Failed to load sign-in history',
  loginSucceeded: 'Success',
  loginFailed: 'Failed',

  eventsTitle: 'Security events',
  eventsDescription: 'Everything that happened to your account, newest first.',
  noEvents: 'No security events yet.',
  noMatchingEvents: 'No security events match these filters.',
  eventTypeLabel: 'Type',
  allEventTypes: 'All types',
  severityLabel: 'Severity',
  allSeverities: 'All severities',
  fromLabel: 'From',
  toLabel: 'To',
  dateRangeInverted: 'The end date is before the start date.',
  clearFilters: 'Clear filters',
  previousPage: 'Previous',
  nextPage: 'Next',
  pageRange: (first: number, last: number, total: number) =>
    total === 0 ? 'No events' : `${first}–${last} of ${total}`,
  exportJson: 'Export JSON',
  exportCsv: 'Export CSV',

  twoFactorTitle: 'Two-factor sign-in',
  twoFactorDescription: 'A code from an authenticator app after your password.',
  twoFactorOn: 'On',
  twoFactorOff: 'Off',
  twoFactorOffHelp:
    'Turn it on to ask for a 6-digit code from an authenticator app (such as Aegis, 1Password or Google Authenticator) each time you sign in.',
  turnOn: 'Turn on',
  qrAlt: 'QR code for your authenticator app',
  manualSecret: 'Or enter this key by hand',
  codeLabel: '6-digit code',
  verifyAndTurnOn: 'Verify and turn on',
  recoveryCodesTitle: 'Your recovery codes',
  recoveryCodesHelp:
    'Each code signs you in once if you lose your phone. They are shown only now: copy or download them and keep them somewhere safe.',
  copyFailed: 'Copying failed: select the codes and copy them by hand.',
  downloadCodes: 'Download .txt',
  recoveryCodesFile: 'perch-recovery-codes.txt',
  savedThem: 'I have saved them',
  recoveryCodesRemaining: (count: number) =>
    count === 1 ? '1 recovery code left.' : `${count} recovery codes left.`,
  turnOff: 'Turn off',
  turnOffHelp: 'Enter a code from your authenticator app, or one of your recovery codes.',
  turnOffCodeLabel: 'Code or recovery code',
  confirmTurnOff: 'Turn off two-factor sign-in',
  twoFactorFailed: 'Two-factor sign-in could not be changed.',
  settingsUnavailable: 'This server offers no security settings.',
  loadSettingsFailed: 'Failed to load security settings',

  alertsTitle: 'Security alerts',
  alertsDescription: 'When Perch warns you on the dashboard.',
  alertOnNewDevice: 'Sign-in from a new device',
  alertOnNewDeviceHelp: 'A device or IP address not seen on your account before.',
  alertOnFailedLogins: 'Failed sign-ins',
  alertOnFailedLoginsHelp: 'Repeated wrong passwords for your account.',
  saveSettingsFailed: 'The setting could not be saved.',

  passwordTitle: 'Change password',
  passwordDescription: 'Your other sessions are signed out.',
  currentPassword: 'Current password',
  newPassword: 'New password',
  confirmPassword: 'Confirm new password',
  changePassword: 'Change password',
  changePasswordFailed: 'The password could not be changed.',

  incidentTitle: 'Report an incident',
  incidentDescription: 'Something looks wrong? Tell your administrator.',
  incidentTypeLabel: 'What happened',
  incidentTypes: [
    { value: 'suspicious_sign_in', label: 'A sign-in I do not recognise' },
    { value: 'account_compromise', label: 'Someone else used my account' },
    { value: 'lost_device', label: 'A device was lost or stolen' },
    { value: 'phishing', label: 'A phishing message' },
    { value: 'user_report', label: 'Something else' },
  ],
  incidentSeverityLabel: 'How serious',
  incidentDetailsLabel: 'Description',
  incidentDetailsPlaceholder: 'When it happened, what you saw, what you did.',
  sendReport: 'Send report',
  incidentReference: (id: number) => `Reference #${id}.`,
  reportFailed: 'The report could not be sent.',
} as const;
