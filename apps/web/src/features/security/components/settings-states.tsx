import { EmptyText, QueryStates } from '@/components/section-states';
import type { useSecuritySettingsQuery } from '../api/get-security-settings';
import { SECURITY_TEXTS } from '../utils/security-texts';

export interface SettingsStatesProps {
  query: ReturnType<typeof useSecuritySettingsQuery>;
  loadingLabel: string;
  errorTestId: string;
}

/** A card built on the security settings while they load, fail, or the server has none. */
export function SettingsStates({ query, loadingLabel, errorTestId }: SettingsStatesProps) {
  return (
    <>
      <QueryStates
        query={query}
        loadingLabel={loadingLabel}
        skeletonRows={2}
        errorTitle={SECURITY_TEXTS.loadSettingsFailed}
        errorTestId={errorTestId}
      />
      {query.data === null ? <EmptyText>{SECURITY_TEXTS.settingsUnavailable}</EmptyText> : null}
    </>
  );
}
