import { NativeSelect, NumberInput, SimpleGrid, Stack, TagsInput, Text } from '@mantine/core';
import {
  ALERT_DIRECTIONS,
  ALERT_MAX_MULTIPLE,
  ALERT_MAX_PERCENT,
  ALERT_MAX_SILENCE_DAYS,
  ALERT_MAX_WITHIN_HOURS,
  ALERT_METRICS,
  ALERT_PERIODS,
  FILTER_MAX_TERMS,
  type AlertDirection,
  type AlertMetric,
  type AlertPeriod,
} from '@perch/shared';
import { ALERT_TEXTS, DIRECTION_LABELS, METRIC_LABELS, PERIOD_LABELS } from '../utils/alert-texts';
import type { RuleFormErrors, RuleFormField, RuleFormValues } from '../utils/rule-form';

export interface KindFieldsProps {
  values: RuleFormValues;
  errors: RuleFormErrors;
  onChange: <K extends RuleFormField>(field: K, value: RuleFormValues[K]) => void;
}

/** Two fields side by side from the `xs` breakpoint, stacked on a phone. */
const PAIR = { base: 1, xs: 2 } as const;

const options = <T extends string>(values: readonly T[], labels: Record<T, string>) =>
  values.map((value) => ({ value, label: labels[value] }));

/**
 * The fields of the chosen kind. The word lists work as the notification filter's do: whole
 * words or phrases, Enter or a comma after each one, at most FILTER_MAX_TERMS per list.
 */
export function KindFields({ values, errors, onChange }: KindFieldsProps) {
  switch (values.type) {
    case 'metric_threshold':
      return (
        <Stack gap="sm">
          <SimpleGrid cols={PAIR} spacing="sm">
            <NativeSelect
              label={ALERT_TEXTS.metricLabel}
              value={values.metric}
              onChange={(event) => onChange('metric', event.currentTarget.value as AlertMetric)}
              data={options(ALERT_METRICS, METRIC_LABELS)}
              error={errors.metric}
            />
            <NumberInput
              label={ALERT_TEXTS.thresholdLabel}
              value={values.threshold}
              onChange={(value) => onChange('threshold', value)}
              min={1}
              allowDecimal={false}
              allowNegative={false}
              thousandSeparator=","
              error={errors.threshold}
            />
          </SimpleGrid>
          <NumberInput
            label={ALERT_TEXTS.withinHoursLabel}
            description={ALERT_TEXTS.withinHoursDescription}
            value={values.withinHours}
            onChange={(value) => onChange('withinHours', value)}
            min={1}
            max={ALERT_MAX_WITHIN_HOURS}
            allowDecimal={false}
            allowNegative={false}
            error={errors.withinHours}
          />
        </Stack>
      );
    case 'engagement_multiple':
      return (
        <Stack gap="xs">
          <SimpleGrid cols={PAIR} spacing="sm">
            <NumberInput
              label={ALERT_TEXTS.multipleLabel}
              value={values.multiple}
              onChange={(value) => onChange('multiple', value)}
              min={1}
              max={ALERT_MAX_MULTIPLE}
              step={0.5}
              decimalScale={2}
              allowNegative={false}
              error={errors.multiple}
            />
            <NativeSelect
              label={ALERT_TEXTS.periodLabel}
              value={values.period}
              onChange={(event) => onChange('period', event.currentTarget.value as AlertPeriod)}
              data={options(ALERT_PERIODS, PERIOD_LABELS)}
              error={errors.period}
            />
          </SimpleGrid>
          <Text size="xs" c="dimmed">
            {ALERT_TEXTS.multipleDescription}
          </Text>
        </Stack>
      );
    case 'words':
      return (
        <Stack gap="sm">
          <TagsInput
            label={ALERT_TEXTS.includeLabel}
            description={ALERT_TEXTS.includeDescription}
            placeholder={ALERT_TEXTS.includePlaceholder}
            value={values.include}
            onChange={(terms) => onChange('include', terms)}
            maxTags={FILTER_MAX_TERMS}
            clearable
            error={errors.include}
          />
          <TagsInput
            label={ALERT_TEXTS.excludeLabel}
            description={ALERT_TEXTS.excludeDescription}
            placeholder={ALERT_TEXTS.excludePlaceholder}
            value={values.exclude}
            onChange={(terms) => onChange('exclude', terms)}
            maxTags={FILTER_MAX_TERMS}
            clearable
            error={errors.exclude}
          />
        </Stack>
      );
    case 'follower_change':
      return (
        <Stack gap="sm">
          <NativeSelect
            label={ALERT_TEXTS.directionLabel}
            value={values.direction}
            onChange={(event) => onChange('direction', event.currentTarget.value as AlertDirection)}
            data={options(ALERT_DIRECTIONS, DIRECTION_LABELS)}
            error={errors.direction}
          />
          <SimpleGrid cols={PAIR} spacing="sm">
            <NumberInput
              label={ALERT_TEXTS.percentLabel}
              value={values.percent}
              onChange={(value) => onChange('percent', value)}
              min={0}
              max={ALERT_MAX_PERCENT}
              decimalScale={1}
              allowNegative={false}
              error={errors.percent}
            />
            <NumberInput
              label={ALERT_TEXTS.accountsLabel}
              value={values.accounts}
              onChange={(value) => onChange('accounts', value)}
              min={1}
              allowDecimal={false}
              allowNegative={false}
              thousandSeparator=","
              error={errors.accounts}
            />
          </SimpleGrid>
          <Text size="xs" c="dimmed">
            {ALERT_TEXTS.followerChangeDescription}
          </Text>
        </Stack>
      );
    case 'silence':
      return (
        <NumberInput
          label={ALERT_TEXTS.daysLabel}
          value={values.days}
          onChange={(value) => onChange('days', value)}
          min={1}
          max={ALERT_MAX_SILENCE_DAYS}
          allowDecimal={false}
          allowNegative={false}
          error={errors.days}
        />
      );
  }
}
