/** Words of the shared building blocks in components/ (buttons of errors, dialogs, copies). */
export const COMMON_TEXTS = {
  retry: 'Retry',
  cancel: 'Cancel',
  copy: 'Copy',
  copied: 'Copied',
} as const;
