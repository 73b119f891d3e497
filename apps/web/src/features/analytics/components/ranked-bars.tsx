import { BarsList, type BarsListProps } from '@mantine/charts';
import { formatInteger } from '../utils/format';

/** Counts as ranked horizontal bars, in the look the analytics cards share. */
export function RankedBars(
  props: Omit<BarsListProps, 'valueFormatter' | 'barHeight' | 'barGap' | 'autoContrast'>,
) {
  return (
    <BarsList valueFormatter={formatInteger} barHeight={26} barGap={6} autoContrast {...props} />
  );
}
