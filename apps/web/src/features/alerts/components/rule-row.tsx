import { ActionIcon, Badge, Group, Paper, Stack, Switch, Text, Tooltip } from '@mantine/core';
import type { AlertRule } from '@perch/shared';
import { IconPencil, IconTrash } from '@tabler/icons-react';
import { useUpdateAlertRuleMutation } from '../api/update-alert-rule';
import { ALERT_TEXTS, KIND_LABELS } from '../utils/alert-texts';
import { describeRule } from '../utils/describe-rule';

export interface RuleRowProps {
  rule: AlertRule;
  onEdit: (rule: AlertRule) => void;
  onDelete: (rule: AlertRule) => void;
  /** The switch was stored (`enabled` is the new state). */
  onSwitched: (rule: AlertRule) => void;
  onSwitchFailed: (error: unknown) => void;
}

/**
 * One rule: its name, what it watches in a sentence, and its switch, Edit and Delete. The switch
 * shows the new state while the change is on its way and falls back when it is refused.
 */
export function RuleRow({ rule, onEdit, onDelete, onSwitched, onSwitchFailed }: RuleRowProps) {
  const toggle = useUpdateAlertRuleMutation();
  const pendingEnabled = toggle.isPending ? toggle.variables.changes.enabled : undefined;
  const enabled = pendingEnabled ?? rule.enabled;

  const handleToggle = (next: boolean) => {
    toggle.mutate(
      { id: rule.id, changes: { enabled: next } },
      { onSuccess: onSwitched, onError: onSwitchFailed },
    );
  };

  return (
    <Paper
      component="li"
      withBorder
      radius="md"
      p="sm"
      data-testid="alert-rule"
      aria-label={rule.name}
    >
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="sm">
        <Stack gap={4} miw={0} style={{ flex: 1, opacity: enabled ? 1 : 0.65 }}>
          <Group gap="xs" wrap="wrap" miw={0}>
            <Text fw={600} size="sm" style={{ overflowWrap: 'anywhere' }}>
              {rule.name}
            </Text>
            {/* Wraps on a phone rather than cutting the kind's name short. */}
            <Badge
              size="xs"
              variant="light"
              color="gray"
              tt="none"
              h="auto"
              maw="100%"
              styles={{ label: { whiteSpace: 'normal' } }}
            >
              {KIND_LABELS[rule.kind.type]}
            </Badge>
            {enabled ? null : (
              <Badge size="xs" variant="outline" color="gray" tt="none">
                {ALERT_TEXTS.off}
              </Badge>
            )}
          </Group>
          <Text size="sm" c="dimmed" data-testid="alert-rule-description">
            {describeRule(rule.kind)}
          </Text>
        </Stack>
        <Group gap={4} wrap="nowrap" style={{ flexShrink: 0 }}>
          <Switch
            checked={enabled}
            onChange={(event) => handleToggle(event.currentTarget.checked)}
            disabled={toggle.isPending}
            aria-label={ALERT_TEXTS.enabledLabel(rule.name)}
            mr={4}
          />
          <Tooltip label={ALERT_TEXTS.edit}>
            <ActionIcon
              variant="subtle"
              aria-label={ALERT_TEXTS.editLabel(rule.name)}
              onClick={() => onEdit(rule)}
            >
              <IconPencil size={18} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label={ALERT_TEXTS.delete}>
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={ALERT_TEXTS.deleteLabel(rule.name)}
              onClick={() => onDelete(rule)}
            >
              <IconTrash size={18} />
            </ActionIcon>
          </Tooltip>
        </Group>
      </Group>
    </Paper>
  );
}
