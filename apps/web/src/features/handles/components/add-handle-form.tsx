import {
  Button,
  Group,
  Input,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { BACKFILL_DAY_CHOICES, DEFAULT_BACKFILL_DAYS } from '@perch/shared';
import { IconPlus } from '@tabler/icons-react';
import type { AddHandleFormState } from '../hooks/use-add-handle-form';
import { HANDLE_TEXTS } from '../utils/handle-messages';
import { HandleFormMessage } from './handle-form-message';

/** Labels of the backfill period choice: 7 or 15 days, 15 recommended. */
export function backfillDaysLabel(days: number): string {
  return days === DEFAULT_BACKFILL_DAYS ? `${days} days (recommended)` : `${days} days`;
}

const DAY_OPTIONS = BACKFILL_DAY_CHOICES.map((days) => ({
  value: String(days),
  label: backfillDaysLabel(days),
}));

/**
 * The panel's add form: the handle with its live duplicate hint, the 7/15-day choice, the limit
 * note, Add, and the inline message of the last action.
 */
export function AddHandleForm({ form }: { form: AddHandleFormState }) {
  return (
    <form onSubmit={form.handleSubmit} aria-label="Add handle">
      <Stack gap="sm">
        <SimpleGrid type="container" cols={{ base: 1, '640px': 2 }} spacing="md">
          <TextInput
            label="Twitter handle"
            placeholder={HANDLE_TEXTS.inputPlaceholder}
            value={form.input}
            onChange={(event) => form.setInput(event.currentTarget.value)}
            error={form.hint ?? undefined}
            leftSection={<Text size="sm">@</Text>}
            autoComplete="off"
          />
          <Input.Wrapper label="Historical collection period" id="backfill-days-label">
            <SegmentedControl
              fullWidth
              aria-labelledby="backfill-days-label"
              data={DAY_OPTIONS}
              value={String(form.backfillDays)}
              onChange={(value) => form.setBackfillDays(Number(value))}
            />
          </Input.Wrapper>
        </SimpleGrid>
        <Group justify="space-between" gap="sm">
          {form.atLimit ? (
            <Text size="sm" c="orange">
              {HANDLE_TEXTS.limitReached}
            </Text>
          ) : (
            <span />
          )}
          <Button
            type="submit"
            leftSection={<IconPlus size={16} />}
            disabled={!form.canSubmit}
            loading={form.isAdding}
          >
            Add handle
          </Button>
        </Group>
        <HandleFormMessage message={form.message} onClose={form.clearMessage} />
      </Stack>
    </form>
  );
}
