import { Group, Text, Title } from '@mantine/core';
import { useId, type ReactNode } from 'react';
import { SectionFrame } from '@/components/section-frame';
import { MetricInfo } from './metric-info';

export interface SectionCardProps {
  title: string;
  /** The definition quoted in the title's info tooltip. */
  definition: string;
  /** A short line under the title. */
  subtitle?: ReactNode;
  /** Controls on the right of the title (e.g. a metric picker). */
  actions?: ReactNode;
  /** Spans every column of the grid. */
  fullWidth?: boolean;
  testId?: string;
  children: ReactNode;
}

/** One analytics section: a titled card whose title explains itself in a tooltip. */
export function SectionCard({
  title,
  definition,
  subtitle,
  actions,
  fullWidth = false,
  testId,
  children,
}: SectionCardProps) {
  const titleId = useId();
  return (
    <SectionFrame titleId={titleId} testId={testId} fullWidth={fullWidth}>
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="sm" mb="md">
        <div style={{ minWidth: 0 }}>
          <Group gap={6} wrap="nowrap">
            <Title order={3} fz="sm" fw={600} id={titleId}>
              {title}
            </Title>
            <MetricInfo label={title} definition={definition} />
          </Group>
          {subtitle ? (
            <Text size="xs" c="dimmed" mt={2}>
              {subtitle}
            </Text>
          ) : null}
        </div>
        {actions}
      </Group>
      {children}
    </SectionFrame>
  );
}

/** The quiet line a section shows when it has nothing to show. */
export function SectionEmpty({ children }: { children: ReactNode }) {
  return (
    <Text size="sm" c="dimmed" ta="center" py="xl">
      {children}
    </Text>
  );
}
