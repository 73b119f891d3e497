import { Box, Group, Paper, Text } from '@mantine/core';
import { WEEKDAYS, type CompleteAnalytics } from '@perch/shared';
import { useState, type PointerEvent } from 'react';
import { formatHour, plural, shortWeekday } from '../utils/format';
import { METRIC_DEFINITIONS } from '../utils/metric-definitions';
import { SectionCard } from './section-card';

const HOURS = Array.from({ length: 24 }, (_, hour) => hour);
const HOUR_LABEL_STEP = 3;
const LEGEND_STEPS = [0, 0.25, 0.5, 0.75, 1];
/** Half the widest tooltip: it is kept this far from the grid's sides so that it stays inside. */
const TOOLTIP_HALF_WIDTH = 100;

/** Empty cells: a quiet tile in either colour scheme (Mantine sets `color-scheme`). */
const EMPTY_CELL = 'light-dark(var(--mantine-color-gray-1), var(--mantine-color-dark-5))';

/** The fill of a cell: the accent colour, stronger with more posts; empty cells stay quiet. */
export function heatColor(count: number, max: number): string {
  if (count <= 0 || max <= 0) return EMPTY_CELL;
  const share = Math.round(20 + 80 * (count / max));
  return `color-mix(in srgb, var(--mantine-primary-color-filled) ${share}%, transparent)`;
}

/** 'Tuesday 14:00–15:00: 9 posts' */
export function heatCellLabel(day: string, hour: number, count: number): string {
  return `${day} ${formatHour(hour)}–${formatHour((hour + 1) % 24)}: ${plural(count, 'post')}`;
}

interface HoveredCell {
  label: string;
  /** Where the tooltip points, inside the grid's box. */
  left: number;
  top: number;
}

/**
 * Posts by weekday (rows, Monday to Sunday) and hour (columns): a 7 x 24 grid whose cells get
 * stronger with more posts. One shared tooltip follows the pointer from cell to cell (168
 * separate tooltips would make the dashboard slow to draw); every cell also names its count to
 * assistive technology.
 */
export function PostingHeatmap({ data }: { data: CompleteAnalytics }) {
  const heatmap = data.postingPatterns.heatmap;
  const max = Math.max(0, ...heatmap.flat());
  const [hovered, setHovered] = useState<HoveredCell | null>(null);

  const handlePointerOver = (event: PointerEvent<HTMLDivElement>) => {
    const target = event.target;
    const cell = target instanceof HTMLElement ? target.closest<HTMLElement>('[data-cell]') : null;
    if (!cell) {
      setHovered(null);
      return;
    }
    const width = event.currentTarget.clientWidth;
    const center = cell.offsetLeft + cell.offsetWidth / 2;
    setHovered({
      label: cell.getAttribute('aria-label') ?? '',
      left:
        width > 2 * TOOLTIP_HALF_WIDTH
          ? Math.min(Math.max(center, TOOLTIP_HALF_WIDTH), width - TOOLTIP_HALF_WIDTH)
          : center,
      top: cell.offsetTop,
    });
  };

  return (
    <SectionCard
      title="Posting heatmap"
      definition={METRIC_DEFINITIONS.heatmap}
      subtitle={`Weekday and hour of each post (${data.timezone})`}
      fullWidth
      testId="analytics-heatmap"
    >
      <Box
        pos="relative"
        maw={960}
        role="table"
        aria-label="Posts by weekday and hour"
        onPointerOver={handlePointerOver}
        onPointerLeave={() => setHovered(null)}
        style={{
          display: 'grid',
          gridTemplateColumns: 'auto repeat(24, minmax(0, 1fr))',
          gap: 3,
          alignItems: 'center',
        }}
      >
        <Box role="row" style={{ display: 'contents' }}>
          <span role="columnheader" aria-label="Weekday" />
          {HOURS.filter((hour) => hour % HOUR_LABEL_STEP === 0).map((hour) => (
            <Text
              key={hour}
              role="columnheader"
              size="10px"
              c="dimmed"
              style={{ gridColumn: `span ${HOUR_LABEL_STEP}` }}
            >
              {String(hour).padStart(2, '0')}
            </Text>
          ))}
        </Box>
        {WEEKDAYS.map((day, dayIndex) => (
          <Box key={day} role="row" style={{ display: 'contents' }}>
            <Text role="rowheader" size="xs" c="dimmed" pr={6} aria-label={day}>
              {shortWeekday(day)}
            </Text>
            {HOURS.map((hour) => {
              const count = heatmap[dayIndex]?.[hour] ?? 0;
              return (
                <div
                  key={hour}
                  role="cell"
                  data-cell
                  data-count={count}
                  aria-label={heatCellLabel(day, hour, count)}
                  style={{
                    aspectRatio: '1 / 1',
                    borderRadius: 3,
                    background: heatColor(count, max),
                  }}
                />
              );
            })}
          </Box>
        ))}
        {hovered ? (
          <Paper
            shadow="md"
            withBorder
            radius="sm"
            px="xs"
            py={4}
            pos="absolute"
            left={hovered.left}
            top={hovered.top - 6}
            aria-hidden
            data-testid="heatmap-tooltip"
            style={{
              transform: 'translate(-50%, -100%)',
              pointerEvents: 'none',
              whiteSpace: 'nowrap',
              zIndex: 2,
            }}
          >
            <Text size="xs" fw={500}>
              {hovered.label}
            </Text>
          </Paper>
        ) : null}
      </Box>
      <Group gap={6} mt="sm" justify="flex-end" aria-hidden>
        <Text size="xs" c="dimmed">
          Fewer
        </Text>
        {LEGEND_STEPS.map((step) => (
          <Box
            key={step}
            w={12}
            h={12}
            style={{ borderRadius: 3, background: heatColor(step * 100, 100) }}
          />
        ))}
        <Text size="xs" c="dimmed">
          More
        </Text>
      </Group>
    </SectionCard>
  );
}
