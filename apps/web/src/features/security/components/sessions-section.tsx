import { Badge, Button, Text } from '@mantine/core';
import { SECURITY_MESSAGES, type SecuritySession } from '@perch/shared';
import { IconLogout } from '@tabler/icons-react';
import { useMemo, useState } from 'react';
import { ConfirmDialog, type ConfirmQuestion } from '@/components/confirm-dialog';
import { ResponsiveList, type ListColumn } from '@/components/responsive-list';
import { QueryStates } from '@/components/section-states';
import { formatDateTime } from '@/lib/format';
import { formatRelative } from '@/lib/format';
import { useNow } from '@/lib/use-now';
import { useSessionsQuery } from '../api/get-sessions';
import { useRevokeOtherSessionsMutation } from '../api/revoke-other-sessions';
import { useRevokeSessionMutation } from '../api/revoke-session';
import { useOutcome } from '../hooks/use-outcome';
import { SECURITY_TEXTS } from '../utils/security-texts';
import { ipColumn } from './columns';
import { SecuritySection } from './security-section';

type Question = { kind: 'one'; session: SecuritySession } | { kind: 'others' };

function questionText(question: Question): ConfirmQuestion {
  if (question.kind === 'others') {
    return {
      title: SECURITY_TEXTS.revokeOthers,
      message: SECURITY_TEXTS.confirmRevokeOthers,
      confirmLabel: SECURITY_TEXTS.revokeOthers,
    };
  }
  return {
    title: SECURITY_TEXTS.revokeTitle,
    message: SECURITY_TEXTS.confirmRevoke(question.session.device, question.session.ip),
    confirmLabel: SECURITY_TEXTS.revoke,
  };
}

function When({ iso, now }: { iso: string; now: number }) {
  return (
    <Text component="span" size="sm" title={formatDateTime(iso)}>
      {formatRelative(iso, now)}
    </Text>
  );
}

/**
 * The account's live sessions: device, IP, when each started and was last active, this
 * browser's marked 'This device'. Any other session can be revoked, or all of them at once;
 * both ask first.
 */
export function SessionsSection() {
  const sessionsQuery = useSessionsQuery();
  const revokeMutation = useRevokeSessionMutation();
  const revokeOthersMutation = useRevokeOtherSessionsMutation();
  const outcome = useOutcome();
  const now = useNow();
  const [question, setQuestion] = useState<Question | null>(null);
  const confirmQuestion = useMemo(() => (question ? questionText(question) : null), [question]);

  const sessions = sessionsQuery.data;
  const others = sessions?.filter((session) => !session.current).length ?? 0;

  const handleConfirm = () => {
    const asked = question;
    setQuestion(null);
    if (!asked) return;
    if (asked.kind === 'one') {
      revokeMutation.mutate(asked.session.id, {
        onSuccess: ({ message }) => outcome.success(message ?? SECURITY_MESSAGES.sessionRevoked),
        onError: (error) => outcome.failed(SECURITY_TEXTS.revokeFailed, error),
      });
      return;
    }
    revokeOthersMutation.mutate(undefined, {
      onSuccess: ({ data, message }) =>
        outcome.success(message ?? SECURITY_MESSAGES.otherSessionsRevoked(data.revoked)),
      onError: (error) => outcome.failed(SECURITY_TEXTS.revokeOthersFailed, error),
    });
  };

  const columns: ListColumn<SecuritySession>[] = [
    {
      header: 'Device',
      card: 'title',
      cell: (session) => (
        <Text size="sm" fw={600}>
          {session.device}
        </Text>
      ),
    },
    {
      header: 'Status',
      card: 'aside',
      nowrap: true,
      cell: (session) =>
        session.current ? (
          <Badge color="cyan" variant="light" radius="sm" size="sm">
            {SECURITY_TEXTS.thisDevice}
          </Badge>
        ) : null,
    },
    ipColumn((session) => session.ip ?? SECURITY_TEXTS.unknownIp),
    {
      header: 'Signed in',
      nowrap: true,
      cell: (session) => <When iso={session.createdAt} now={now} />,
    },
    {
      header: 'Last active',
      nowrap: true,
      cell: (session) => <When iso={session.lastSeenAt} now={now} />,
    },
  ];

  return (
    <SecuritySection
      section="sessions"
      outcome={outcome}
      actions={
        <Button
          size="xs"
          variant="light"
          color="red"
          leftSection={<IconLogout size={14} />}
          disabled={others === 0}
          loading={revokeOthersMutation.isPending}
          onClick={() => setQuestion({ kind: 'others' })}
        >
          {SECURITY_TEXTS.revokeOthers}
        </Button>
      }
    >
      <QueryStates
        query={sessionsQuery}
        loadingLabel="Loading sessions"
        errorTitle={SECURITY_TEXTS.loadSessionsFailed}
        errorTestId="sessions-error"
        emptyText={SECURITY_TEXTS.noSessions}
        emptyTestId="sessions-empty"
      />
      {sessions && sessions.length > 0 ? (
        <ResponsiveList
          label={SECURITY_TEXTS.sessionsTitle}
          items={sessions}
          itemKey={(session) => session.id}
          columns={columns}
          itemTestId="session-row"
          itemLabel={(session) =>
            session.current ? `${session.device} (${SECURITY_TEXTS.thisDevice})` : session.device
          }
          minWidth={640}
          actions={(session) =>
            session.current ? null : (
              <Button
                size="xs"
                variant="light"
                color="red"
                aria-label={SECURITY_TEXTS.revokeLabel(session.device)}
                loading={revokeMutation.isPending && revokeMutation.variables === session.id}
                onClick={() => setQuestion({ kind: 'one', session })}
              >
                {SECURITY_TEXTS.revoke}
              </Button>
            )
          }
        />
      ) : null}
      <ConfirmDialog
        question={confirmQuestion}
        onConfirm={handleConfirm}
        onCancel={() => setQuestion(null)}
      />
    </SecuritySection>
  );
}
