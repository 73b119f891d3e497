import {
  WEBHOOK_MESSAGES,
  type NotificationPreferences,
  type WebhookEndpointInput,
  type WebhookPreset,
} from '@perch/shared';
import { ApiError } from '@/lib/api-client';

/** Each body format: its name and what it is for, in one line. */
export const WEBHOOK_PRESET_TEXTS: Record<WebhookPreset, { label: string; explanation: string }> = {
  generic: {
    label: 'Generic JSON',
    explanation: "Perch's own signed JSON, for your own service or an automation tool.",
  },
  slack: {
    label: 'Slack',
    explanation: 'A message for a Slack incoming webhook, ready to show in a channel.',
  },
  discord: {
    label: 'Discord',
    explanation: 'A message for a Discord channel webhook (mentions switched off).',
  },
};

/** Words of the Webhooks card that are not messages of the contract. */
export const WEBHOOK_TEXTS = {
  cardDescription: 'Signed HTTPS requests to your own addresses',
  /** The badge beside the title: how many endpoints of how many allowed. */
  count: (count: number, limit: number) => `${count} of ${limit}`,
  countLabel: (count: number, limit: number) => `${count} of ${limit} webhooks used`,
  empty: 'No webhooks yet.',
  emptyHelp:
    'A webhook sends each new post of your handles, and your alerts, to an address of yours: your own service, a Slack channel or a Discord channel. Every request is signed, so the receiver can tell it came from Perch.',
  loadFailed: 'Failed to load webhooks',
  loading: 'Loading webhooks',
  add: 'Add webhook',
  limitReached: (limit: number) => `You have all ${limit} webhooks: delete one to add another.`,
  addTitle: 'Add webhook',
  editTitle: 'Edit webhook',
  nameLabel: 'Name',
  nameHelp: 'For you: it names the webhook in this list.',
  urlLabel: 'Address (URL)',
  urlHelp:
    'Must start with https://. Plain http:// only reaches this machine (localhost), and only when the server allows it.',
  presetLabel: 'Format',
  saveFailed: 'Failed to save the webhook.',
  saved: (name: string) => `Webhook "${name}" saved.`,
  created: (name: string) => `Webhook "${name}" added.`,
  addedOn: (date: string) => `Added ${date}`,
  stoppedHelp: 'Fix the receiver, then change the address (Edit) to resume.',
  test: 'Test',
  testFailed: 'Failed to send the test request.',
  testPassed: 'Test passed',
  testDidNotPass: 'Test failed',
  rotate: 'Rotate secret',
  rotateQuestion: {
    title: 'Make a new secret?',
    message:
      'The current secret stops signing requests at once: update your receiver with the new one, or it will refuse what Perch sends.',
    confirmLabel: 'Make new secret',
  },
  rotateFailed: 'Failed to make a new secret.',
  edit: 'Edit',
  delete: 'Delete',
  deleteQuestion: (name: string) => ({
    title: 'Delete webhook?',
    message: `"${name}" stops receiving posts and alerts at once, and its secret is forgotten.`,
    confirmLabel: 'Delete webhook',
  }),
  deleteFailed: 'Failed to delete the webhook.',
  secretTitle: 'Copy the signing secret',
  secretLabel: 'Signing secret',
  copySecret: 'Copy the signing secret',
  copyFailed: 'Copying failed: select the secret and copy it by hand.',
  secretDone: 'I have copied it',
  verifyTitle: 'How to verify a request',
  handlesTitle: 'Handles sent to your webhooks',
  handlesHelp: 'New posts of the handles switched on go to every webhook above.',
  handlesNeedWebhook: 'Add a webhook first: then choose which handles it receives.',
  handlesEmpty: 'No handles yet: add one on the',
  handlesLoadFailed: 'Failed to load your handles',
  handleSwitchLabel: (handle: string) => `Webhooks for @${handle}`,
  handleToggled: (handle: string, enabled: boolean) =>
    `Webhooks ${enabled ? 'enabled' : 'disabled'} for @${handle}`,
  handleToggleFailed: 'Failed to switch the webhooks of this handle.',
} as const;

/** The switches of the "What is forwarded" card. */
export const FORWARDED_KIND_TEXTS: Record<
  keyof NotificationPreferences,
  { label: string; description: string }
> = {
  include_replies: {
    label: 'Replies',
    description:
      "Replies to other accounts. A handle's replies in its own threads always come through.",
  },
  include_retweets: {
    label: 'Reposts',
    description: 'Posts of other accounts that a handle reposts (retweets).',
  },
  include_quotes: {
    label: 'Quotes',
    description: "Posts that quote another post, with the handle's own comment.",
  },
};

export const FORWARDED_TEXTS = {
  title: 'What is forwarded',
  description: 'Which posts of your handles reach your channels and webhooks',
  help: 'A handle’s own posts are always forwarded. Saved as you switch.',
  loading: 'Loading what is forwarded',
  loadFailed: 'Failed to load what is forwarded',
  saveFailed: 'Failed to save notification settings.',
} as const;

/** Which field of the webhook form a server refusal belongs to. */
export type WebhookField = keyof WebhookEndpointInput;

const NAME_TEXTS: ReadonlySet<string> = new Set([
  WEBHOOK_MESSAGES.nameRequired,
  WEBHOOK_MESSAGES.nameTooLong,
]);

/**
 * Where a refused save is shown. The server's check of the address decides, so any other 400
 * (scheme, loopback, private network, credentials, and whatever it adds later) is said at the
 * URL field; a name or format refusal at its own field; anything else (the limit, a failure)
 * above the form.
 */
export function webhookSaveError(error: unknown): { field: WebhookField | null; text: string } {
  if (error instanceof ApiError && error.status === 400 && error.serverMessage) {
    const text = error.serverMessage;
    if (NAME_TEXTS.has(text)) return { field: 'name', text };
    if (text === WEBHOOK_MESSAGES.presetInvalid) return { field: 'preset', text };
    return { field: 'url', text };
  }
  if (error instanceof ApiError && error.status < 500 && error.serverMessage) {
    return { field: null, text: error.serverMessage };
  }
  return { field: null, text: WEBHOOK_TEXTS.saveFailed };
}
