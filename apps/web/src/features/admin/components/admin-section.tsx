import { Group } from '@mantine/core';
import type { Icon } from '@tabler/icons-react';
import { useId, type ReactNode } from 'react';
import { IconHeading, SectionFrame } from '@/components/section-frame';

export interface AdminSectionProps {
  title: string;
  icon: Icon;
  /** The accent of the icon. */
  color: string;
  /** A short line under the title. */
  description?: ReactNode;
  /** Buttons on the right of the title (they wrap under it on phones). */
  actions?: ReactNode;
  testId?: string;
  children: ReactNode;
}

/** One section of the admin page: a landmark named by its title, with an icon and actions. */
export function AdminSection({
  title,
  icon,
  color,
  description,
  actions,
  testId,
  children,
}: AdminSectionProps) {
  const titleId = useId();
  return (
    <SectionFrame titleId={titleId} testId={testId} shrink>
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
