import { Stack } from '@mantine/core';
import { PageHeader } from '@/components/page-header';
import { ChallengePanel } from '@/features/admin/components/challenge-panel';
import { useAuth } from '@/features/auth/hooks/use-auth';
import { SettingsView } from '@/features/settings/components/settings-view';
import { SETTINGS_TEXTS } from '@/features/settings/utils/settings-messages';

/**
 * /settings: the user's notification channels, X account, forwarding and delivery log; a super
 * admin also answers the collector account's verification challenge here (doc 1 §2).
 */
export function SettingsRoute() {
  const { currentUser } = useAuth();
  return (
    <>
      <PageHeader title="Settings" description={SETTINGS_TEXTS.pageDescription} />
      <Stack gap="md">
        {currentUser?.isSuperAdmin ? <ChallengePanel /> : null}
        <SettingsView />
      </Stack>
    </>
  );
}

export { SettingsRoute as Component };
