import type { XWebAccountStatusName, XWebOperation } from '@perch/shared';
import type { Look } from './looks';

/** Words of the Admin page's x-web collector pool (the messages are X_WEB_MESSAGES). */
export const X_WEB_TEXTS = {
  title: 'X web collector accounts',
  description:
    "The X accounts the x-web source signs in with to read X's private web API. X may change that API without notice and may limit or lock these accounts: use accounts you can lose.",
  notInUse: 'TWEET_SOURCE is not x-web on this server: the accounts are kept, and used once it is.',
  empty:
    'No collector account yet. Add one by its cookies (the most stable way) or by its password.',
  loadFailed: 'Failed to load the collector accounts.',
  addTitle: 'Add an account',
  byCookies: 'Cookies',
  byPassword: 'Password',
  cookiesHint:
    'From a browser signed in to x.com: Developer tools, Application, Cookies, https://x.com.',
  passwordHint:
    'Perch signs in once when it first needs the account. If X emails a code, enter it in the verification panel in Settings.',
  usernameLabel: 'X username',
  authTokenLabel: 'auth_token cookie',
  ct0Label: 'ct0 cookie',
  passwordLabel: 'Account password',
  emailLabel: 'Email address',
  totpLabel: 'TOTP secret (if two-factor is on)',
  add: 'Add account',
  addFailed: 'Failed to add the collector account.',
  removeTitle: 'Remove collector account',
  confirmRemove: (username: string) =>
    `Remove @${username} from the collector pool? Its stored password or cookies are deleted.`,
  removeFailed: (username: string) => `Failed to remove @${username}.`,
  resetFailed: (username: string) => `Failed to reset @${username}.`,
  resetHint: 'Use it again: credentials sign in afresh, cookies are tried again.',
  noLimits: 'No request yet',
  restingUntil: (at: string) => `Resting until ${at}`,
  waitingStep: (step: string) => `Waits at ${step}: enter the emailed code in Settings.`,
  twoFactor: '2FA',
  usageNotBilled:
    "The x-web source reads X's web API with the collector accounts: nothing is billed. Its limits are per account and operation; the pool's are below.",
  noUsableAccount:
    'No X web collector account can collect now. Collection waits and resumes as soon as one can: add one or reset one on this page, or enter the code one waits for in Settings.',
  why: 'Why',
  never: 'never',
  lastUsed: (at: string) => `Last used ${at}`,
} as const;

export const X_WEB_STATUS_LOOK: Record<XWebAccountStatusName, Look> = {
  ACTIVE: { label: 'Active', color: 'green' },
  NEEDS_LOGIN: { label: 'Not signed in yet', color: 'blue' },
  AWAITING_INPUT: { label: 'Waiting for code', color: 'yellow' },
  FAILED: { label: 'Sign-in failed', color: 'red' },
  LOCKED: { label: 'Locked', color: 'red' },
  SUSPENDED: { label: 'Suspended', color: 'red' },
  EXPIRED: { label: 'Session ended', color: 'orange' },
};

/** Short names of the GraphQL operations for the limits column. */
export const X_WEB_OPERATION_LABEL: Record<XWebOperation, string> = {
  UserByScreenName: 'Lookup',
  UserTweets: 'Timeline',
  UsersByRestIds: 'Profiles',
  TweetResultsByRestIds: 'Tweets',
};
