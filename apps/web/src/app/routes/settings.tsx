import { PageHeader } from '@/components/page-header';
import { SettingsView } from '@/features/settings/components/settings-view';
import { SETTINGS_TEXTS } from '@/features/settings/utils/settings-messages';

/** /settings: the user's notification channels, X account, forwarding and delivery log. */
export function SettingsRoute() {
  return (
    <>
      <PageHeader title="Settings" description={SETTINGS_TEXTS.pageDescription} />
      <SettingsView />
    </>
  );
}

export { SettingsRoute as Component };
