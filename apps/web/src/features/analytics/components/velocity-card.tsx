import type { CompleteAnalytics, Velocity } from '@perch/shared';
import { formatPerHour, plural } from '../utils/format';
import { METRIC_DEFINITIONS } from '../utils/metric-definitions';
import { SectionCard, SectionEmpty } from './section-card';
import { StatTile, StatTiles } from './stat-tile';

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
          <StatTile
            label="First hour"
            value={formatPerHour(velocity.avg_1h)}
            rawValue={velocity.avg_1h}
            definition={METRIC_DEFINITIONS.velocity1h}
            hint={plural(velocity.posts_measured_1h, 'post') + ' measured'}
          />
          <StatTile
            label="First 3 hours"
            value={formatPerHour(velocity.avg_3h)}
            rawValue={velocity.avg_3h}
            definition={METRIC_DEFINITIONS.velocity3h}
            hint={plural(velocity.posts_measured_3h, 'post') + ' measured'}
          />
          <StatTile
            label="First 6 hours"
            value={formatPerHour(velocity.avg_6h)}
            rawValue={velocity.avg_6h}
            definition={METRIC_DEFINITIONS.velocity6h}
            hint={plural(velocity.posts_measured_6h, 'post') + ' measured'}
          />
          <StatTile
            label="Peak"
            value={formatPerHour(velocity.peak)}
            rawValue={velocity.peak}
            definition={METRIC_DEFINITIONS.velocityPeak}
            hint="fastest stretch of any post"
          />
        </StatTiles>
      )}
    </SectionCard>
  );
}
