import { Group } from '@mantine/core';
import type { Icon } from '@tabler/icons-react';
import { useId, type ReactNode } from 'react';
import { IconHeading, SectionFrame } from '@/components/section-frame';

export interface IconSectionProps {
  title: string;
  icon: Icon;
  /** The accent of the icon. */
  color: string;
  /** A short line under the title. */
  description?: ReactNode;
  /** Buttons or a badge on the right of the title (they wrap under it on phones). */
  actions?: ReactNode;
  testId?: string;
  /** Spans every column of the grid. */
  fullWidth?: boolean;
  children: ReactNode;
}

/** One section or card of a page: a landmark named by its title, with an icon and actions. */
export function IconSection({
  title,
  icon,
  color,
  description,
  actions,
  testId,
  fullWidth = false,
  children,
}: IconSectionProps) {
  const titleId = useId();
  return (
    <SectionFrame titleId={titleId} testId={testId} fullWidth={fullWidth} shrink>
      <Group justify="space-between" align="flex-start" gap="sm" mb="md">
        <IconHeading
          id={titleId}
          title={title}
          icon={icon}
          color={color}
          description={description}
          grow
        />
        {actions ? (
          <Group gap="xs" wrap="wrap">
            {actions}
          </Group>
        ) : null}
      </Group>
      {children}
    </SectionFrame>
  );
}
