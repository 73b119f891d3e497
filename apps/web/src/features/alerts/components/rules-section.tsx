import { Button, Group, Stack, Text } from '@mantine/core';
import { SUCCESS_BANNER_MS, type AlertRule, type Handle } from '@perch/shared';
import { IconBell, IconBellPlus, IconPlus, IconUserPlus } from '@tabler/icons-react';
import type { UseQueryResult } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { IconSection } from '@/components/icon-section';
import { MessageAlert, type AlertMessage } from '@/components/message-alert';
import { SectionError, SectionSkeleton } from '@/components/section-states';
import { failureReason } from '@/lib/failure-text';
import { useTimedMessage } from '@/lib/use-timed-message';
import { useAlertRulesQuery } from '../api/get-alert-rules';
import { useDeleteAlertRuleMutation } from '../api/delete-alert-rule';
import { ALERT_TEXTS } from '../utils/alert-texts';
import { EmptyState } from './empty-state';
import { RuleFormModal, type RuleFormTarget } from './rule-form-modal';
import { RuleRow } from './rule-row';

/** The followed handles' query, as the handles feature runs it (the route passes it in). */
export type HandlesQuery = Pick<
  UseQueryResult<Handle[]>,
  'data' | 'error' | 'isPending' | 'isError' | 'isFetching' | 'refetch'
>;

interface RuleGroup {
  handle: string;
  rules: AlertRule[];
}

/**
 * The rules per handle: in the order of the followed handles, then any other handle a rule names
 * (a handle unfollowed since), each group's rules oldest first as the server lists them.
 */
export function groupRules(rules: readonly AlertRule[], handles: readonly string[]): RuleGroup[] {
  const groups = new Map<string, RuleGroup>();
  const keyOf = (handle: string) => handle.toLowerCase();
  for (const handle of handles) groups.set(keyOf(handle), { handle, rules: [] });
  for (const rule of rules) {
    const group = groups.get(keyOf(rule.handle));
    if (group) group.rules.push(rule);
    else groups.set(keyOf(rule.handle), { handle: rule.handle, rules: [rule] });
  }
  return [...groups.values()].filter((group) => group.rules.length > 0);
}

export interface RulesSectionProps {
  handlesQuery: HandlesQuery;
  /** The followed handles' names, once loaded. */
  handles: readonly string[] | undefined;
}

/**
 * The user's alert rules, grouped per handle, with how many of the limit are used and New alert.
 * A switch, an edit or a deletion says how it went above the list; a deletion asks first.
 */
export function RulesSection({ handlesQuery, handles }: RulesSectionProps) {
  const rulesQuery = useAlertRulesQuery();
  const deleteMutation = useDeleteAlertRuleMutation();
  const { message, show, clear } = useTimedMessage<AlertMessage>();
  const [formTarget, setFormTarget] = useState<RuleFormTarget | null>(null);
  const [toDelete, setToDelete] = useState<AlertRule | null>(null);

  const list = rulesQuery.data;
  const rules = list?.rules;
  const groups = useMemo(() => groupRules(rules ?? [], handles ?? []), [rules, handles]);
  const followed = useMemo(
    () => new Set((handles ?? []).map((handle) => handle.toLowerCase())),
    [handles],
  );
  const atLimit = list !== undefined && list.rules.length >= list.limit;
  const noHandles = handles !== undefined && handles.length === 0;
  const canCreate = list !== undefined && handles !== undefined && !noHandles && !atLimit;

  const success = (text: string) => show({ kind: 'success', text }, SUCCESS_BANNER_MS);
  const failed = (text: string, error: unknown) =>
    show({ kind: 'error', text, details: failureReason(error, text) });

  const handleConfirmDelete = () => {
    const rule = toDelete;
    setToDelete(null);
    if (!rule) return;
    deleteMutation.mutate(rule, {
      onSuccess: () => success(ALERT_TEXTS.deleted(rule.name)),
      onError: (error) => failed(ALERT_TEXTS.deleteFailed, error),
    });
  };

  const newAlertButton = (handle?: string) => (
    <Button
      size="xs"
      leftSection={<IconPlus size={14} />}
      disabled={!canCreate}
      onClick={() => setFormTarget({ mode: 'create', handle })}
    >
      {ALERT_TEXTS.newAlert}
    </Button>
  );

  return (
    <IconSection
      title={ALERT_TEXTS.rulesTitle}
      icon={IconBell}
      color="yellow"
      description={ALERT_TEXTS.rulesDescription}
      testId="alert-rules"
      actions={
        list ? (
          <Group gap="sm" wrap="nowrap">
            <Text size="sm" c="dimmed" data-testid="alerts-used" style={{ whiteSpace: 'nowrap' }}>
              {ALERT_TEXTS.used(list.rules.length, list.limit)}
            </Text>
            {newAlertButton()}
          </Group>
        ) : null
      }
    >
      <MessageAlert
        message={message}
        onDismiss={clear}
        testId={(kind) => `alert-rules-${kind}`}
        mb="md"
      />

      {rulesQuery.isPending || (list && handlesQuery.isPending) ? (
        <SectionSkeleton label={ALERT_TEXTS.loadingRules} rows={3} />
      ) : null}
      {rulesQuery.isError && !list ? (
        <SectionError
          title={ALERT_TEXTS.loadRulesFailed}
          reason={failureReason(rulesQuery.error, ALERT_TEXTS.loadRulesFailed)}
          retrying={rulesQuery.isFetching}
          onRetry={() => void rulesQuery.refetch()}
          testId="alert-rules-load-error"
        />
      ) : null}
      {list && handlesQuery.isError && !handlesQuery.data ? (
        <Stack mb="md">
          <SectionError
            title={ALERT_TEXTS.loadHandlesFailed}
            reason={failureReason(handlesQuery.error, ALERT_TEXTS.loadHandlesFailed)}
            retrying={handlesQuery.isFetching}
            onRetry={() => void handlesQuery.refetch()}
            testId="alert-handles-error"
          />
        </Stack>
      ) : null}

      {list && noHandles && list.rules.length === 0 ? (
        <EmptyState
          icon={IconUserPlus}
          title={ALERT_TEXTS.noHandlesTitle}
          testId="alerts-no-handles"
          action={
            <Button component={Link} to="/" variant="light" size="xs">
              {ALERT_TEXTS.goToDashboard}
            </Button>
          }
        >
          {ALERT_TEXTS.noHandles}
        </EmptyState>
      ) : null}
      {list && handles && !noHandles && list.rules.length === 0 ? (
        <EmptyState
          icon={IconBellPlus}
          title={ALERT_TEXTS.noRulesTitle}
          testId="alerts-no-rules"
          action={newAlertButton()}
        >
          {ALERT_TEXTS.noRules}
        </EmptyState>
      ) : null}

      {list && !handlesQuery.isPending && groups.length > 0 ? (
        <Stack gap="lg">
          {groups.map((group) => (
            <Stack key={group.handle.toLowerCase()} gap="xs" data-testid="alert-group">
              <Group justify="space-between" gap="xs">
                <Group gap="xs">
                  <Text fw={600} size="sm">
                    @{group.handle}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {ALERT_TEXTS.rulesOf(group.rules.length)}
                  </Text>
                </Group>
                {followed.has(group.handle.toLowerCase()) ? (
                  <Button
                    size="compact-xs"
                    variant="subtle"
                    leftSection={<IconPlus size={12} />}
                    disabled={!canCreate}
                    onClick={() => setFormTarget({ mode: 'create', handle: group.handle })}
                    aria-label={ALERT_TEXTS.newAlertFor(group.handle)}
                  >
                    {ALERT_TEXTS.add}
                  </Button>
                ) : null}
              </Group>
              <Stack
                component="ul"
                gap="xs"
                m={0}
                p={0}
                style={{ listStyle: 'none' }}
                aria-label={`Alerts for @${group.handle}`}
              >
                {group.rules.map((rule) => (
                  <RuleRow
                    key={rule.id}
                    rule={rule}
                    onEdit={(chosen) => setFormTarget({ mode: 'edit', rule: chosen })}
                    onDelete={setToDelete}
                    onSwitched={(switched) =>
                      success(
                        switched.enabled
                          ? ALERT_TEXTS.switchedOn(switched.name)
                          : ALERT_TEXTS.switchedOff(switched.name),
                      )
                    }
                    onSwitchFailed={(error) => failed(ALERT_TEXTS.switchFailed, error)}
                  />
                ))}
              </Stack>
            </Stack>
          ))}
        </Stack>
      ) : null}

      <RuleFormModal
        target={formTarget}
        handles={handles ?? []}
        onClose={() => setFormTarget(null)}
        onSaved={success}
      />
      <ConfirmDialog
        question={
          toDelete
            ? {
                title: ALERT_TEXTS.deleteTitle,
                message: ALERT_TEXTS.confirmDelete(toDelete.name, toDelete.handle),
                confirmLabel: ALERT_TEXTS.delete,
              }
            : null
        }
        onConfirm={handleConfirmDelete}
        onCancel={() => setToDelete(null)}
      />
    </IconSection>
  );
}
