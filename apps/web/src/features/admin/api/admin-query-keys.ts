/** Cache keys of the admin area; every key starts with 'admin' so one prefix refreshes them all. */
export const adminQueryKeys = {
  all: ['admin'] as const,
  users: ['admin', 'users'] as const,
  userHandles: (userId: number) => ['admin', 'users', userId, 'handles'] as const,
  handles: ['admin', 'handles'] as const,
  processes: ['admin', 'processes'] as const,
  invitations: ['admin', 'invitations'] as const,
  xWebAccounts: ['admin', 'x-web-accounts'] as const,
  xWebOperations: ['admin', 'x-web-operations'] as const,
};
