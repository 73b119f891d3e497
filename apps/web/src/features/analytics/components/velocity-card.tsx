import type { CompleteAnalytics, Velocity } from '@perch/shared';
import { formatPerHour, plural } from '../utils/format';
import { METRIC_DEFINITIONS } from '../utils/metric-definitions';
import { SectionCard, SectionEmpty } from './section-card';
import { StatTileList, StatTiles, type StatItem } from './stat-tile';

/** What the velocity card says when no post has snapshots yet. */
export const NO_SNAPSHOTS_TEXT = 'Not enough snapshots yet';

/** True when velocity cannot be told (no metric snapshots): never estimated from totals. */
export function hasNoVelocity(velocity: Velocity): boolean {
  return (
    velocity.avg_1h === null &&
    velocity.avg_3h === null &&
    velocity.avg_6h === null &&
    velocity.peak === null
  );
}

const measured = (posts: number) => `${plural(posts, 'post')} measured`;

function velocityItems(velocity: Velocity): StatItem[] {
  return [
    {
      label: 'First hour',
      value: velocity.avg_1h,
      format: formatPerHour,
      definition: METRIC_DEFINITIONS.velocity1h,
      hint: measured(velocity.posts_measured_1h),
    },
    {
      label: 'First 3 hours',
      value: velocity.avg_3h,
      format: formatPerHour,
      definition: METRIC_DEFINITIONS.velocity3h,
      hint: measured(velocity.posts_measured_3h),
    },
    {
      label: 'First 6 hours',
      value: velocity.avg_6h,
      format: formatPerHour,
      definition: METRIC_DEFINITIONS.velocity6h,
      hint: measured(velocity.posts_measured_6h),
    },
    {
      label: 'Peak',
      value: velocity.peak,
      format: formatPerHour,
      definition: METRIC_DEFINITIONS.velocityPeak,
      hint: 'fastest stretch of any post',
    },
  ];
}

/** How fast posts gather engagement in their first hours. */
export function VelocityCard({ data }: { data: CompleteAnalytics }) {
  const velocity = data.velocity;
  return (
    <SectionCard
      title="Velocity"
      definition={METRIC_DEFINITIONS.velocity}
      subtitle="Engagement per hour after posting"
      testId="analytics-velocity"
    >
      {hasNoVelocity(velocity) ? (
        <SectionEmpty>
          {NO_SNAPSHOTS_TEXT}: velocity needs repeated metric readings of recent posts.
        </SectionEmpty>
      ) : (
        <StatTiles>
          <StatTileList items={velocityItems(velocity)} />
        </StatTiles>
      )}
    </SectionCard>
  );
}
