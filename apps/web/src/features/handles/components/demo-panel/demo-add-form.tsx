import { Button, Group, NumberInput, Paper, Text, TextInput } from '@mantine/core';
import { MAX_BACKFILL_DAYS, MIN_BACKFILL_DAYS } from '@perch/shared';
import type { useDemoAddHandleForm } from '../../hooks/demo-add-handle-form';
import { DEMO_TEXTS } from '../../utils/demo-handle';

export interface DemoAddFormProps {
  form: ReturnType<typeof useDemoAddHandleForm>;
}

/** Add Handle: the handle, the backfill days and Add ('Adding...' while the call runs). */
export function DemoAddForm({ form }: DemoAddFormProps) {
  return (
    <Paper withBorder radius="md" p="md">
      <Text fw={600} mb="sm">
        Add Handle
      </Text>
      <form onSubmit={form.handleSubmit} aria-label="Add handle (demo)">
        <Group align="flex-end" gap="sm" wrap="wrap">
          <TextInput
            label="Twitter handle"
            placeholder={DEMO_TEXTS.inputPlaceholder}
            value={form.input}
            onChange={(event) => form.setInput(event.currentTarget.value)}
            error={form.duplicate}
            autoComplete="off"
            style={{ flex: '1 1 16rem' }}
          />
          <NumberInput
            label="Backfill days"
            min={MIN_BACKFILL_DAYS}
            max={MAX_BACKFILL_DAYS}
            allowDecimal={false}
            allowNegative={false}
            value={form.days}
            onChange={form.setDays}
            w={130}
          />
          <Button type="submit" disabled={!form.canSubmit}>
            {form.isAdding ? 'Adding...' : 'Add'}
          </Button>
        </Group>
        {form.duplicate ? (
          <Text size="sm" c="red" mt="xs" role="status">
            {DEMO_TEXTS.alreadyExists}
          </Text>
        ) : null}
        {form.atLimit ? (
          <Text size="sm" c="orange" mt="xs">
            {DEMO_TEXTS.limitReached}
          </Text>
        ) : null}
      </form>
    </Paper>
  );
}
