import { Anchor, Stack } from '@mantine/core';
import { Link } from 'react-router';
import { PageHeader } from '@/components/page-header';
import { ChallengePanel } from '@/features/admin/components/challenge-panel';
import { StepUpDialog } from '@/features/auth/components/step-up-dialog';
import { useAuth } from '@/features/auth/hooks/use-auth';
import { PreferencesCard } from '@/features/settings/components/preferences-card';
import { SettingsView } from '@/features/settings/components/settings-view';
import { SETTINGS_TEXTS } from '@/features/settings/utils/settings-messages';

/**
 * /settings: the user's notification channels, X account, forwarding and delivery log, then this
 * browser's preferences; a super admin also answers the collector account's verification
 * challenge here. The Security Dashboard is not in the menu, so its link
 * sits in the description.
 */
export function SettingsRoute() {
  const { currentUser } = useAuth();
  return (
    <>
      <PageHeader
        title="Settings"
        description={
          <>
            {SETTINGS_TEXTS.pageDescription} Sessions, sign-in history and two-factor sign-in are on
            the{' '}
            <Anchor component={Link} to="/security" inherit>
              Security
            </Anchor>{' '}
            page.
          </>
        }
      />
      <Stack gap="md">
        {currentUser?.isSuperAdmin ? <ChallengePanel /> : null}
        <SettingsView />
        <PreferencesCard />
      </Stack>
      {/* Connecting or removing a channel asks for the password when the last one is old. */}
      <StepUpDialog />
    </>
  );
}

export { SettingsRoute as Component };
