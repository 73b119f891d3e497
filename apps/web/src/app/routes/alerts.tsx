import { PageHeader } from '@/components/page-header';
import { AlertsView } from '@/features/alerts/components/alerts-view';
import { ALERT_TEXTS } from '@/features/alerts/utils/alert-texts';
import { useHandlesQuery } from '@/features/handles/api/get-handles';

/**
 * /alerts: the user's alert rules per followed handle and the history of what fired. The
 * followed handles come from the handles feature's own list query, composed here because a
 * feature does not reach into another.
 */
export function AlertsRoute() {
  const handlesQuery = useHandlesQuery();
  return (
    <>
      <PageHeader title={ALERT_TEXTS.pageTitle} description={ALERT_TEXTS.pageDescription} />
      <AlertsView handlesQuery={handlesQuery} />
    </>
  );
}

export { AlertsRoute as Component };
