import {
  IconAlertOctagon,
  IconMail,
  IconBellRinging,
  IconDeviceLaptop,
  IconDeviceMobileMessage,
  IconGauge,
  IconHistory,
  IconKey,
  IconListDetails,
} from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { IconSection, type IconSectionProps } from '@/components/icon-section';
import { MessageAlert } from '@/components/message-alert';
import type { OutcomeState } from '../hooks/use-outcome';
import { SECURITY_TEXTS } from '../utils/security-texts';

type SectionHead = Pick<IconSectionProps, 'title' | 'icon' | 'color' | 'description' | 'testId'>;

/** The heading of every card of the Security Dashboard. */
const SECTIONS = {
  stats: {
    title: SECURITY_TEXTS.statsTitle,
    icon: IconGauge,
    color: 'cyan',
    description: SECURITY_TEXTS.statsDescription,
    testId: 'security-stats',
  },
  sessions: {
    title: SECURITY_TEXTS.sessionsTitle,
    icon: IconDeviceLaptop,
    color: 'cyan',
    description: SECURITY_TEXTS.sessionsDescription,
    testId: 'security-sessions',
  },
  'login-history': {
    title: SECURITY_TEXTS.loginHistoryTitle,
    icon: IconHistory,
    color: 'teal',
    description: SECURITY_TEXTS.loginHistoryDescription,
    testId: 'security-login-history',
  },
  'two-factor': {
    title: SECURITY_TEXTS.twoFactorTitle,
    icon: IconDeviceMobileMessage,
    color: 'violet',
    description: SECURITY_TEXTS.twoFactorDescription,
    testId: 'security-two-factor',
  },
  alerts: {
    title: SECURITY_TEXTS.alertsTitle,
    icon: IconBellRinging,
    color: 'yellow',
    description: SECURITY_TEXTS.alertsDescription,
    testId: 'security-alert-settings',
  },
  password: {
    title: SECURITY_TEXTS.passwordTitle,
    icon: IconKey,
    color: 'blue',
    description: SECURITY_TEXTS.passwordDescription,
    testId: 'security-password',
  },
  email: {
    title: SECURITY_TEXTS.emailTitle,
    icon: IconMail,
    color: 'blue',
    description: SECURITY_TEXTS.emailDescription,
    testId: 'security-email',
  },
  incident: {
    title: SECURITY_TEXTS.incidentTitle,
    icon: IconAlertOctagon,
    color: 'red',
    description: SECURITY_TEXTS.incidentDescription,
    testId: 'security-incident',
  },
  events: {
    title: SECURITY_TEXTS.eventsTitle,
    icon: IconListDetails,
    color: 'orange',
    description: SECURITY_TEXTS.eventsDescription,
    testId: 'security-events',
  },
} satisfies Record<string, SectionHead>;

export type SecuritySectionName = keyof typeof SECTIONS;

export interface SecuritySectionProps {
  section: SecuritySectionName;
  /** Buttons or a badge on the right of the title. */
  actions?: ReactNode;
  /**
   * The green or red line of the card's last action, above its content (test ids
   * `${section}-outcome-success` and `${section}-outcome-error`).
   */
  outcome?: OutcomeState;
  children: ReactNode;
}

/** One card of the Security Dashboard, with its title, icon and description. */
export function SecuritySection({ section, actions, outcome, children }: SecuritySectionProps) {
  return (
    <IconSection {...SECTIONS[section]} actions={actions}>
      {outcome ? (
        <MessageAlert
          message={outcome.outcome}
          onDismiss={outcome.dismiss}
          testId={(kind) => `${section}-outcome-${kind}`}
          mb="md"
        />
      ) : null}
      {children}
    </IconSection>
  );
}
