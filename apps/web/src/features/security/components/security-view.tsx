import { SimpleGrid, Stack } from '@mantine/core';
import type { ReactNode } from 'react';
import { AlertSettingsCard } from './alert-settings-card';
import { ChangePasswordCard } from './change-password-card';
import { EventsSection } from './events-section';
import { IncidentCard } from './incident-card';
import { LoginHistorySection } from './login-history-section';
import { SessionsSection } from './sessions-section';
import { StatsSection } from './stats-section';
import { TwoFactorCard } from './two-factor-card';

/** Two cards side by side once the content area is wide enough (container query). */
const CARD_COLUMNS = { base: 1, '720px': 2 } as const;

export interface SecurityViewProps {
  /** Guidance under the new password of the change-password form. */
  passwordStrength?: (password: string) => ReactNode;
}

/**
 * The Security Dashboard's body: the counts and risk level, what is
 * signed in and the latest sign-ins, then two-factor sign-in, alerts, the password and incident
 * reports, and last the long, paged event log. Every card loads, fails and retries on its own.
 */
export function SecurityView({ passwordStrength }: SecurityViewProps) {
  return (
    <Stack gap="lg">
      <StatsSection />
      <SessionsSection />
      <LoginHistorySection />
      <SimpleGrid type="container" cols={CARD_COLUMNS} spacing="lg">
        <TwoFactorCard />
        <AlertSettingsCard />
        <ChangePasswordCard strengthMeter={passwordStrength} />
        <IncidentCard />
      </SimpleGrid>
      <EventsSection />
    </Stack>
  );
}
