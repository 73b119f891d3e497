import type { MantineColor } from '@mantine/core';

/** One colour per kind of interaction, the same in every chart and legend. */
export const METRIC_COLORS = {
  tweets: 'yellow.5',
  likes: 'pink.5',
  retweets: 'teal.5',
  replies: 'blue.5',
  quotes: 'violet.5',
  engagement: 'cyan.5',
  followers: 'grape.5',
} as const satisfies Record<string, MantineColor>;

/** Content types and languages, in order of their slices. */
export const CATEGORY_COLORS: readonly MantineColor[] = [
  'cyan.5',
  'violet.5',
  'pink.5',
  'teal.5',
  'yellow.5',
  'blue.5',
  'gray.6',
];

export function categoryColor(index: number): MantineColor {
  return CATEGORY_COLORS[index % CATEGORY_COLORS.length] ?? 'gray.6';
}

/** A theme colour reference ('cyan.5') as its CSS variable, for plain elements. */
export function cssColor(color: MantineColor): string {
  return `var(--mantine-color-${color.replace('.', '-')})`;
}
