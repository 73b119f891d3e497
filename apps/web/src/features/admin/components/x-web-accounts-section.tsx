import { Alert, Box, Button, Divider, Group, Stack, Text } from '@mantine/core';
import type { XWebAccount } from '@perch/shared';
import { IconInfoCircle, IconRefresh, IconTrash } from '@tabler/icons-react';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { type ListColumn, ResponsiveList } from '@/components/responsive-list';
import { EmptyText } from '@/components/section-states';
import { failureReason } from '@/lib/failure-text';
import { formatDateTime } from '@/lib/format';
import {
  useRemoveXWebAccountMutation,
  useResetXWebAccountMutation,
  useXWebAccountsQuery,
} from '../api/x-web-accounts';
import { useAdminNotifier } from '../hooks/use-admin-banner';
import { useConfirmedAction } from '../hooks/use-confirmed-action';
import { accountWhy } from '../utils/x-web-account-why';
import { X_WEB_OPERATION_LABEL, X_WEB_STATUS_LOOK, X_WEB_TEXTS } from '../utils/x-web-texts';
import { DangerButton } from './danger-button';
import { LookBadge } from './look-badge';
import { XWebAccountForm } from './x-web-account-form';
import { XWebPoolBanner } from './x-web-pool-banner';
import { AdminQuerySection } from './admin-query-section';
import { ADMIN_SECTIONS } from './admin-sections';

/** Statuses an admin can put back in the pool. */
const OUT = ['AWAITING_INPUT', 'FAILED', 'LOCKED', 'SUSPENDED', 'EXPIRED'];

function Limits({ account }: { account: XWebAccount }) {
  if (account.limits.length === 0) {
    return (
      <Text size="sm" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
        {X_WEB_TEXTS.noLimits}
      </Text>
    );
  }
  return (
    <Stack gap={2}>
      {account.limits.map((limit) => (
        <Text
          key={limit.operation}
          size="xs"
          c={limit.remaining === 0 ? 'red' : undefined}
          title={limit.reset_at ? `Resets ${formatDateTime(limit.reset_at)}` : undefined}
          style={{ whiteSpace: 'nowrap' }}
        >
          {X_WEB_OPERATION_LABEL[limit.operation]}: {limit.remaining ?? '?'} / {limit.limit ?? '?'}
        </Text>
      ))}
      {account.resting_until ? (
        <Text size="xs" c="yellow">
          {X_WEB_TEXTS.restingUntil(formatDateTime(account.resting_until))}
        </Text>
      ) : null}
    </Stack>
  );
}

/**
 * Why the account is where it is: the reason it is out of the pool (every status but ACTIVE has
 * one) and its last error with X's code and words, each with its time. Never clamped: on a
 * phone there is no tooltip to read the rest in.
 */
function Why({ account }: { account: XWebAccount }) {
  const why = accountWhy(account);
  if (!why.status && !why.lastError) {
    return (
      <Text size="sm" c="dimmed">
        -
      </Text>
    );
  }
  return (
    <Stack gap={6} miw={{ base: 0, sm: 200 }} maw={{ base: '100%', sm: 340 }}>
      {why.status ? (
        <Box>
          <Text size="xs" style={{ overflowWrap: 'anywhere' }} data-testid="x-web-account-reason">
            {why.status.text}
          </Text>
          {why.status.at ? (
            <Text size="xs" c="dimmed">
              {X_WEB_TEXTS.since(formatDateTime(why.status.at))}
            </Text>
          ) : null}
        </Box>
      ) : null}
      {why.lastError ? (
        <Box data-testid="x-web-account-last-error">
          <Text size="xs" c="dimmed">
            {X_WEB_TEXTS.lastError}
            {why.lastError.at ? (
              <>
                , <time dateTime={why.lastError.at}>{formatDateTime(why.lastError.at)}</time>
              </>
            ) : null}
          </Text>
          <Text size="xs" style={{ overflowWrap: 'anywhere' }}>
            {why.lastError.text}
          </Text>
        </Box>
      ) : null}
    </Stack>
  );
}

const COLUMNS: readonly ListColumn<XWebAccount>[] = [
  {
    header: 'Account',
    card: 'title',
    cell: (account) => (
      <Stack gap={2}>
        <Group gap={6} wrap="wrap">
          <Text fw={600} size="sm">
            @{account.username}
          </Text>
          <LookBadge color="gray" size="xs">
            {account.auth_method === 'cookies' ? X_WEB_TEXTS.byCookies : X_WEB_TEXTS.byPassword}
          </LookBadge>
          {account.has_totp ? (
            <LookBadge color="gray" size="xs">
              {X_WEB_TEXTS.twoFactor}
            </LookBadge>
          ) : null}
        </Group>
        <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
          {X_WEB_TEXTS.lastUsed(
            account.last_used_at ? formatDateTime(account.last_used_at) : X_WEB_TEXTS.never,
          )}
        </Text>
      </Stack>
    ),
  },
  {
    header: 'Status',
    card: 'aside',
    cell: (account) => {
      const look = X_WEB_STATUS_LOOK[account.status];
      return <LookBadge color={look.color}>{look.label}</LookBadge>;
    },
  },
  { header: 'Limits left', cell: (account) => <Limits account={account} /> },
  { header: X_WEB_TEXTS.why, card: 'wide', cell: (account) => <Why account={account} /> },
];

/**
 * 'X web collector accounts' (TWEET_SOURCE=x-web): the pool's pause while X refuses web
 * requests, each account's status, the limits it has left per operation, and why it is out or
 * what failed last; super admins add, reset and remove accounts. Shown when the server uses the
 * x-web source or keeps accounts for it.
 */
export function XWebAccountsSection({ isSuperAdmin }: { isSuperAdmin: boolean }) {
  const query = useXWebAccountsQuery();
  const removeMutation = useRemoveXWebAccountMutation();
  const resetMutation = useResetXWebAccountMutation();
  const notify = useAdminNotifier();
  const remove = useConfirmedAction(removeMutation, {
    variables: (target: XWebAccount) => ({ id: target.id, username: target.username }),
    successText: (target) => `@${target.username} removed.`,
    failureText: (target) => X_WEB_TEXTS.removeFailed(target.username),
    failureFallback: (target) => X_WEB_TEXTS.removeFailed(target.username),
  });
  const pool = query.data;
  if (pool && !pool.in_use && pool.accounts.length === 0) return null;
  const accounts = pool?.accounts;

  const reset = (account: XWebAccount) =>
    resetMutation.mutate(
      { id: account.id, username: account.username },
      {
        onSuccess: ({ message }) => notify.success(message ?? X_WEB_TEXTS.resetHint),
        onError: (error) =>
          notify.error(
            X_WEB_TEXTS.resetFailed(account.username),
            failureReason(error, X_WEB_TEXTS.resetFailed(account.username)),
          ),
      },
    );

  return (
    <AdminQuerySection
      section={ADMIN_SECTIONS.xWebAccounts}
      query={query}
      lead={
        <>
          {pool ? <XWebPoolBanner pool={pool.pool} /> : null}
          {pool && !pool.in_use ? (
            <Alert color="gray" variant="light" icon={<IconInfoCircle size={18} />} mb="md">
              {X_WEB_TEXTS.notInUse}
            </Alert>
          ) : null}
          {isSuperAdmin ? (
            <>
              <XWebAccountForm />
              <Divider my="md" />
            </>
          ) : null}
        </>
      }
    >
      {accounts && accounts.length === 0 ? (
        <EmptyText testId="x-web-accounts-empty">{X_WEB_TEXTS.empty}</EmptyText>
      ) : null}
      {accounts && accounts.length > 0 ? (
        <ResponsiveList
          label="Collector accounts"
          items={accounts}
          itemKey={(account) => account.id}
          itemTestId="x-web-account-row"
          itemLabel={(account) => `Collector account @${account.username}`}
          columns={COLUMNS}
          minWidth={820}
          actions={
            isSuperAdmin
              ? (account) => (
                  // Stacked, so the row keeps room for the reason beside it.
                  <Stack gap={6} align="stretch">
                    {OUT.includes(account.status) ? (
                      <Button
                        size="xs"
                        variant="light"
                        leftSection={<IconRefresh size={14} />}
                        title={X_WEB_TEXTS.resetHint}
                        aria-label={`Reset @${account.username}`}
                        loading={
                          resetMutation.isPending && resetMutation.variables.id === account.id
                        }
                        onClick={() => reset(account)}
                      >
                        Reset
                      </Button>
                    ) : null}
                    <DangerButton
                      icon={IconTrash}
                      label="Remove"
                      aria-label={`Remove @${account.username}`}
                      busy={removeMutation.isPending && removeMutation.variables.id === account.id}
                      onClick={() => remove.ask(account)}
                    />
                  </Stack>
                )
              : undefined
          }
        />
      ) : null}
      <ConfirmDialog
        question={
          remove.pending
            ? {
                title: X_WEB_TEXTS.removeTitle,
                message: X_WEB_TEXTS.confirmRemove(remove.pending.username),
                confirmLabel: 'Remove',
              }
            : null
        }
        onConfirm={remove.confirm}
        onCancel={remove.cancel}
      />
    </AdminQuerySection>
  );
}
