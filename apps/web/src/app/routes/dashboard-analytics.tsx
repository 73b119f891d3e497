import { isHandleCollecting, isTemporaryHandleId } from '@perch/shared';
import { AnalyticsView } from '@/features/analytics/components/analytics-view';
import { useBackfillProgressQuery } from '@/features/handles/api/get-backfill-progress';
import { useHandlesQuery } from '@/features/handles/api/get-handles';
import {
  CollectionProblem,
  hasCollectionProblem,
} from '@/features/handles/components/collection-problem';

export interface DashboardAnalyticsProps {
  selectedHandle: string | null;
  onSelect: (handle: string) => void;
}

/**
 * The dashboard's analytics (loaded on demand with the charts library): the analytics view fed
 * with the handles feature's list and the selected handle's live backfill progress, which drives
 * the collecting overlay. The progress query is the one the handle rows poll, so it is shared.
 */
export function DashboardAnalytics({ selectedHandle, onSelect }: DashboardAnalyticsProps) {
  const { data: handles = [] } = useHandlesQuery();
  const wanted = selectedHandle?.toLowerCase();
  const record = handles.find((entry) => entry.handle.toLowerCase() === wanted);
  const polled =
    record !== undefined && isHandleCollecting(record) && !isTemporaryHandleId(record.id);
  const { data: progress } = useBackfillProgressQuery(record?.handle ?? '', polled);
  return (
    <AnalyticsView
      handles={handles}
      selectedHandle={selectedHandle}
      onSelectHandle={onSelect}
      progress={record ? progress : undefined}
      collectionNotice={
        record && hasCollectionProblem(record) ? (
          <CollectionProblem key={record.id} handle={record} />
        ) : null
      }
    />
  );
}
