import { Group } from '@mantine/core';
import type { Icon } from '@tabler/icons-react';
import { useId, type ReactNode } from 'react';
import { IconHeading, SectionFrame } from '@/components/section-frame';

export interface SettingsCardProps {
  title: string;
  icon: Icon;
  /** The accent of the icon. */
  color: string;
  /** A badge on the right of the title (the connection state). */
  status?: ReactNode;
  /** A short line under the title. */
  description?: ReactNode;
  testId?: string;
  /** Spans every column of the grid. */
  fullWidth?: boolean;
  children: ReactNode;
}

/** One card of the Settings page: an icon, a title, its state badge and the body. */
export function SettingsCard({
  title,
  icon,
  color,
  status,
  description,
  testId,
  fullWidth = false,
  children,
}: SettingsCardProps) {
  const titleId = useId();
  return (
    <SectionFrame titleId={titleId} testId={testId} fullWidth={fullWidth}>
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="sm" mb="md">
        <IconHeading
          id={titleId}
          title={title}
          icon={icon}
          color={color}
          description={description}
        />
        {status}
      </Group>
      {children}
    </SectionFrame>
  );
}
