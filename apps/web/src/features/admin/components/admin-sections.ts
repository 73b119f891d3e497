import { ADMIN_MESSAGES, X_USAGE_MESSAGES } from '@perch/shared';
import {
  IconApi,
  IconDatabaseCog,
  IconReceipt2,
  IconRobot,
  IconTicket,
  IconUsers,
  IconUsersGroup,
  IconWorld,
} from '@tabler/icons-react';
import type { IconSectionProps } from '@/components/icon-section';
import type { QueryStatesProps } from '@/components/section-states';
import { ADMIN_TEXTS } from '../utils/admin-texts';
import { X_USAGE_TEXTS } from '../utils/x-usage-texts';
import { X_WEB_TEXTS } from '../utils/x-web-texts';

/** One section of the Admin Dashboard: its heading, and what it says while its list loads. */
export interface AdminSection {
  frame: Omit<IconSectionProps, 'actions' | 'children'>;
  states: Omit<QueryStatesProps, 'query'>;
}

/** The dashboard's sections, in page order. */
export const ADMIN_SECTIONS = {
  users: {
    frame: {
      title: ADMIN_TEXTS.usersTitle(undefined),
      icon: IconUsers,
      color: 'cyan',
      description: ADMIN_TEXTS.usersDescription,
      testId: 'registered-users',
    },
    states: {
      loadingLabel: 'Loading users',
      errorTitle: ADMIN_MESSAGES.loadUsersFailed,
      errorFallback: ADMIN_MESSAGES.fetchUsersFailed,
      errorTestId: 'users-error',
      emptyText: ADMIN_TEXTS.noUsers,
    },
  },
  globalHandles: {
    frame: {
      title: ADMIN_TEXTS.globalHandlesTitle,
      icon: IconWorld,
      color: 'indigo',
      description: ADMIN_TEXTS.globalHandlesDescription,
      testId: 'global-handles',
    },
    states: {
      loadingLabel: 'Loading system handles',
      errorTitle: ADMIN_MESSAGES.loadSystemHandlesFailed,
      errorFallback: ADMIN_MESSAGES.fetchAllHandlesFailed,
      errorTestId: 'global-handles-error',
      emptyText: ADMIN_MESSAGES.noSystemHandles,
      emptyTestId: 'global-handles-empty',
    },
  },
  collectors: {
    frame: {
      title: ADMIN_TEXTS.collectorsTitle,
      icon: IconRobot,
      color: 'violet',
      description: ADMIN_TEXTS.collectorsDescription,
      testId: 'collectors',
    },
    states: {
      loadingLabel: 'Loading collectors',
      errorTitle: ADMIN_TEXTS.loadProcessesFailed,
      errorFallback: ADMIN_MESSAGES.fetchProcessesFailed,
      errorTestId: 'collectors-error',
    },
  },
  xUsage: {
    frame: {
      title: X_USAGE_TEXTS.title,
      icon: IconReceipt2,
      color: 'teal',
      description: X_USAGE_TEXTS.description,
      testId: 'x-usage',
    },
    states: {
      loadingLabel: X_USAGE_TEXTS.loading,
      errorTitle: X_USAGE_MESSAGES.loadUsageFailed,
      errorFallback: X_USAGE_MESSAGES.fetchUsageFailed,
      errorTestId: 'x-usage-error',
    },
  },
  xWebAccounts: {
    frame: {
      title: X_WEB_TEXTS.title,
      icon: IconUsersGroup,
      color: 'cyan',
      description: X_WEB_TEXTS.description,
      testId: 'x-web-accounts',
    },
    states: {
      loadingLabel: 'Loading collector accounts',
      errorTitle: X_WEB_TEXTS.loadFailed,
      errorTestId: 'x-web-accounts-error',
    },
  },
  xWebOperations: {
    frame: {
      title: X_WEB_TEXTS.operationsTitle,
      icon: IconApi,
      color: 'cyan',
      description: X_WEB_TEXTS.operationsDescription,
      testId: 'x-web-operations',
    },
    states: {
      loadingLabel: 'Loading X web operations',
      errorTitle: X_WEB_TEXTS.operationsLoadFailed,
      errorTestId: 'x-web-operations-error',
    },
  },
  invitations: {
    frame: {
      title: ADMIN_TEXTS.invitationsTitle,
      icon: IconTicket,
      color: 'orange',
      description: ADMIN_TEXTS.invitationsDescription,
      testId: 'invitations',
    },
    states: {
      loadingLabel: 'Loading invitations',
      errorTitle: ADMIN_TEXTS.loadInvitationsFailed,
      errorTestId: 'invitations-error',
      emptyText: ADMIN_TEXTS.noInvitations,
    },
  },
  dataCleanup: {
    frame: {
      title: ADMIN_TEXTS.dataCleanupTitle,
      icon: IconDatabaseCog,
      color: 'red',
      description: ADMIN_TEXTS.dataCleanupDescription,
      testId: 'data-cleanup',
    },
    states: {
      loadingLabel: 'Loading handles for clean-up',
      errorTitle: ADMIN_MESSAGES.fetchHandlesFailed,
      errorFallback: ADMIN_MESSAGES.fetchAllHandlesFailed,
      errorTestId: 'cleanup-error',
      emptyText: ADMIN_MESSAGES.noSystemHandles,
    },
  },
} satisfies Record<string, AdminSection>;
