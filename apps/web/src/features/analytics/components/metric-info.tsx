import { ActionIcon, Tooltip } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';

export interface MetricInfoProps {
  /** The metric's name, for the button's accessible label. */
  label: string;
  /** Its definition (utils/metric-definitions). */
  definition: string;
}

/** An info button whose tooltip quotes how a metric is computed (hover, focus or touch). */
export function MetricInfo({ label, definition }: MetricInfoProps) {
  return (
    <Tooltip
      label={definition}
      multiline
      w={300}
      withArrow
      openDelay={100}
      events={{ hover: true, focus: true, touch: true }}
    >
      <ActionIcon
        variant="subtle"
        color="gray"
        size="xs"
        radius="xl"
        aria-label={`About ${label}`}
        style={{ flexShrink: 0 }}
      >
        <IconInfoCircle size={14} stroke={1.6} />
      </ActionIcon>
    </Tooltip>
  );
}
