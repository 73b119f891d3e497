import type { XWebAccountStatusName, XWebOperation, XWebOperationSource } from '@perch/shared';
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
  cookiesRecommended: 'Recommended: the most stable way, with no sign-in for X to question.',
  cookiesHint:
    'In a browser signed in to x.com as this account, open the developer tools > Application > Cookies > https://x.com and copy the values of auth_token and ct0.',
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
  lastError: 'Last error',
  since: (at: string) => `since ${at}`,

  poolAnswer: 'X answered',
  poolSince: 'Since',
  poolRetryAt: (at: string) => `Perch tries again at ${at}`,
  poolPausedDetail:
    'Collection waits with every account, not with one: the accounts keep their own states. Each refusal in a row doubles the wait, from 1 min up to 30 min.',

  operationsTitle: 'X web operations',
  operationsDescription:
    "The GraphQL operations of X's web API that the x-web source calls, with the query ids and switches x.com's own client uses. Perch reads them from x.com and falls back to the last-known set.",
  operationsLoadFailed: 'Failed to load the X web operations.',
  operationsEmpty: 'No operation is known yet.',
  operationsReadAt: 'Operations in use were read from x.com',
  operationsNeverRead: "Perch has not read x.com's client yet",
  operationsReadFailed: "Perch could not read x.com's client",
  operationsLastKnown: 'The last-known set is in use.',
  operationsLastRead: 'Last read from x.com',
  nextCheck: 'Next check',
  overridesFile: (file: string) => `Values from ${file} are used where the file sets them.`,
  setInFile: 'Set in X_WEB_OPERATIONS_FILE',
  checkNow: 'Check x.com now',
  checkFailed: "Failed to check x.com's client.",
  bundleUses: (queryId: string) => `x.com uses ${queryId}`,
  featureCount: (count: number) => `${count} feature${count === 1 ? '' : 's'}`,
  fieldToggleCount: (count: number) => `${count} field toggle${count === 1 ? '' : 's'}`,
  pin: 'Pin',
  unpin: 'Unpin',
  pinTitle: (name: string) => `Pin ${name}`,
  pinIntro:
    "Perch calls the operation with these values instead of x.com's until it is unpinned: for when X changed its client and Perch has not caught up.",
  queryIdLabel: 'Query id',
  queryIdHint: "The <id> of /i/api/graphql/<id>/<operation> in the browser's network tab.",
  featuresLabel: 'Features (JSON, optional)',
  fieldTogglesLabel: 'Field toggles (JSON, optional)',
  switchesHint: 'A JSON object of names to true or false. Left empty: the values in use are kept.',
  pinSubmit: 'Pin operation',
  pinFailed: (name: string) => `Failed to pin ${name}.`,
  unpinTitle: 'Unpin operation',
  confirmUnpin: (name: string) =>
    `Unpin ${name}? Perch goes back to the values x.com's client uses (or the last-known ones).`,
  unpinFailed: (name: string) => `Failed to unpin ${name}.`,
} as const;

/** Why an account with no reason of X's own is out of the pool, by its status. */
export const X_WEB_STATUS_HINT: Record<XWebAccountStatusName, string | null> = {
  ACTIVE: null,
  NEEDS_LOGIN: 'Signs in when collection first needs it.',
  AWAITING_INPUT: 'Waits for the code X emailed: enter it in Settings.',
  FAILED: 'The sign-in failed: reset the account to try again.',
  LOCKED: 'X locked the account: unlock it on x.com, then reset it here.',
  SUSPENDED: 'X suspended the account.',
  EXPIRED: 'X ended the session: reset the account to try again, or add it with fresh cookies.',
};

export const X_WEB_STATUS_LOOK: Record<XWebAccountStatusName, Look> = {
  ACTIVE: { label: 'Active', color: 'green' },
  NEEDS_LOGIN: { label: 'Not signed in yet', color: 'blue' },
  AWAITING_INPUT: { label: 'Waiting for code', color: 'yellow' },
  FAILED: { label: 'Sign-in failed', color: 'red' },
  LOCKED: { label: 'Locked', color: 'red' },
  SUSPENDED: { label: 'Suspended', color: 'red' },
  EXPIRED: { label: 'Session ended', color: 'orange' },
};

/** Short names of the GraphQL operations (the limits column, the operations list). */
export const X_WEB_OPERATION_LABEL: Record<XWebOperation, string> = {
  UserByScreenName: 'Lookup',
  UserTweetsAndReplies: 'Timeline',
  UserTweets: 'Posts only',
  UsersByRestIds: 'Profiles',
  TweetResultsByRestIds: 'Tweets',
};

/** Where an operation's values came from, as its badge says it. */
export const X_WEB_OPERATION_SOURCE_LOOK: Record<XWebOperationSource, Look> = {
  bundle: { label: 'From x.com', color: 'green' },
  default: { label: 'Last known', color: 'gray' },
  admin: { label: 'Pinned', color: 'grape' },
  file: { label: 'File', color: 'cyan' },
};
