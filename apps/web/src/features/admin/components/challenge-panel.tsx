import { Alert, Badge, Button, Group, Loader, Stack, Text, TextInput } from '@mantine/core';
import { ADMIN_MESSAGES, type ChallengeState, type ChallengeStatus } from '@perch/shared';
import { IconAlertTriangle, IconCircleCheck, IconShieldLock } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { IconSection } from '@/components/icon-section';
import { SectionError, SectionSkeleton } from '@/components/section-states';
import { formatDateTime } from '@/lib/format';
import { useChallengeStatus } from '../hooks/use-challenge-status';

/** Words of the verification panel. */
export const CHALLENGE_TEXTS = {
  title: 'Twitter account verification',
  description: 'The account the collector signs in with may ask for a verification code.',
  idle: 'No verification needed',
  idleDetail: 'The collector account is signed in; nothing to do here.',
  awaitingTitle: 'Verification code needed',
  awaitingDetail: 'The collector account asked for a verification code.',
  checking: 'Checking...',
  codeLabel: 'Verification code',
  submit: 'Submit code',
  lastChallenge: (at: string) => `Last challenge: ${at}`,
  waitingSince: (at: string) => `Waiting since ${at}`,
  accountStep: (account: string, step: string | null) =>
    step ? `@${account}, sign-in step ${step}` : `@${account}`,
} as const;

const STATE_LOOK: Record<ChallengeState, { label: string; color: string }> = {
  IDLE: { label: 'No code needed', color: 'green' },
  AWAITING_INPUT: { label: 'Code needed', color: 'yellow' },
  CODE_SUBMITTED: { label: 'Code submitted', color: 'blue' },
};

function LastChallenge({ status }: { status: ChallengeStatus }) {
  const at = status.last_challenge_at ? formatDateTime(status.last_challenge_at) : '';
  if (!at) return null;
  // An x-web account's sign-in waits from then on; the demo account tells its last challenge.
  const waiting = status.status === 'AWAITING_INPUT' && status.account;
  return (
    <Text size="xs" c="dimmed" data-testid="challenge-since">
      {waiting ? CHALLENGE_TEXTS.waitingSince(at) : CHALLENGE_TEXTS.lastChallenge(at)}
    </Text>
  );
}

/**
 * The super admin's panel for the collector account's verification challenge: polled every
 * 30 s; when a code is awaited it stands out in yellow with the code input; after a submit it
 * shows 'Checking...' until the status says how it went.
 */
export function ChallengePanel() {
  const challenge = useChallengeStatus();
  const [code, setCode] = useState('');
  const status = challenge.status;
  const blank = code.trim() === '';

  const handleSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (blank) return;
    if (await challenge.submit(code)) setCode('');
  };

  return (
    <IconSection
      title={CHALLENGE_TEXTS.title}
      icon={IconShieldLock}
      color={status?.status === 'AWAITING_INPUT' ? 'yellow' : 'gray'}
      description={CHALLENGE_TEXTS.description}
      actions={
        status ? (
          <Badge
            color={STATE_LOOK[status.status].color}
            variant="light"
            radius="sm"
            tt="none"
            data-testid="challenge-state"
          >
            {STATE_LOOK[status.status].label}
          </Badge>
        ) : null
      }
      testId="challenge-panel"
    >
      <Stack gap="sm">
        {challenge.fetchError ? (
          <SectionError
            title={ADMIN_MESSAGES.fetchChallengeStatusFailed}
            reason={challenge.fetchError}
            retrying={challenge.isRefetching}
            onRetry={challenge.refetch}
            testId="challenge-fetch-error"
          />
        ) : null}
        {challenge.isLoading ? (
          <SectionSkeleton label="Loading verification status" rows={1} />
        ) : null}

        {status?.status === 'IDLE' ? (
          <Group gap="sm" wrap="nowrap" align="flex-start">
            <IconCircleCheck
              size={20}
              color="var(--mantine-color-green-5)"
              aria-hidden
              style={{ flexShrink: 0 }}
            />
            <Stack gap={2}>
              <Text fw={600}>{CHALLENGE_TEXTS.idle}</Text>
              <Text size="sm" c="dimmed">
                {status.challenge_details ?? challenge.submitMessage ?? CHALLENGE_TEXTS.idleDetail}
              </Text>
              <LastChallenge status={status} />
            </Stack>
          </Group>
        ) : null}

        {status?.status === 'AWAITING_INPUT' ? (
          <Alert
            color="yellow"
            variant="light"
            icon={<IconAlertTriangle size={18} />}
            title={CHALLENGE_TEXTS.awaitingTitle}
            data-testid="challenge-awaiting"
            styles={{ root: { borderLeft: '4px solid var(--mantine-color-yellow-5)' } }}
          >
            <Stack gap="sm">
              <Stack gap={4}>
                {status.challenge_type ? (
                  <Badge color="yellow" variant="outline" radius="sm" tt="none">
                    {status.challenge_type}
                  </Badge>
                ) : null}
                {status.account ? (
                  <Text size="sm" fw={600} data-testid="challenge-account">
                    {CHALLENGE_TEXTS.accountStep(status.account, status.step ?? null)}
                  </Text>
                ) : null}
                <Text size="sm">{status.challenge_details ?? CHALLENGE_TEXTS.awaitingDetail}</Text>
                <Text size="xs" c="dimmed">
                  {status.collection_paused === false
                    ? ADMIN_MESSAGES.collectionGoesOn
                    : ADMIN_MESSAGES.collectionPausedByChallenge}
                </Text>
                <LastChallenge status={status} />
              </Stack>
              <form onSubmit={(event) => void handleSubmit(event)} noValidate>
                <Group align="flex-end" gap="sm" wrap="wrap">
                  <TextInput
                    label={CHALLENGE_TEXTS.codeLabel}
                    value={code}
                    onChange={(event) => {
                      setCode(event.currentTarget.value);
                      if (challenge.submitError) challenge.clearSubmitResult();
                    }}
                    autoComplete="one-time-code"
                    spellCheck={false}
                    style={{ flex: '1 1 12rem' }}
                  />
                  <Button
                    type="submit"
                    color="yellow"
                    disabled={blank}
                    loading={challenge.isSubmitting}
                  >
                    {CHALLENGE_TEXTS.submit}
                  </Button>
                </Group>
              </form>
            </Stack>
          </Alert>
        ) : null}

        {status?.status === 'CODE_SUBMITTED' ? (
          <Group gap="sm" wrap="nowrap" role="status" data-testid="challenge-checking">
            <Loader size="sm" />
            <Stack gap={0}>
              <Text fw={600}>{CHALLENGE_TEXTS.checking}</Text>
              <Text size="sm" c="dimmed">
                {challenge.submitMessage ?? ADMIN_MESSAGES.codeSubmitted}
              </Text>
            </Stack>
          </Group>
        ) : null}

        {challenge.submitError ? (
          <Alert
            color="red"
            variant="light"
            role="alert"
            title={ADMIN_MESSAGES.submitCodeFailed}
            data-testid="challenge-submit-error"
          >
            {challenge.submitError !== ADMIN_MESSAGES.submitCodeFailed
              ? challenge.submitError
              : null}
          </Alert>
        ) : null}
      </Stack>
    </IconSection>
  );
}
