/**
 * Cache keys of the alerts feature. Every key starts with 'alerts', so one prefix refreshes
 * them all; every page of the history sits under `firings`, whatever its handle filter.
 */
export const alertKeys = {
  all: ['alerts'] as const,
  /** The user's rules with the per-user limit. */
  rules: ['alerts', 'rules'] as const,
  /** Every list of firings. */
  firings: ['alerts', 'firings'] as const,
  /** The history's pages, of one handle or (null) of all. */
  firingPages: (handle: string | null, limit: number) =>
    ['alerts', 'firings', { handle: handle?.toLowerCase() ?? null, limit }] as const,
};

/** Keys of the changes to rules, so a screen can tell one is under way. */
export const alertMutationKeys = {
  create: ['alerts', 'create'] as const,
  update: ['alerts', 'update'] as const,
  remove: ['alerts', 'delete'] as const,
};
