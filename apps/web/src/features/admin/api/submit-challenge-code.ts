import {
  ADMIN_MESSAGES,
  challengeStatusResponseSchema,
  type ChallengeStatus,
  type SubmitChallengeCodeRequest,
} from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { adminQueryKeys } from './admin-query-keys';
import { challengeStatusQueryKey } from './get-challenge-status';

export interface SubmittedCode {
  /** The server's message (the contract's text when it sends none). */
  message: string;
  /** The status after the submit: CODE_SUBMITTED (demo), or already decided (x-web). */
  status: ChallengeStatus;
}

/**
 * POST /admin/submit-twitter-challenge-code: hands the collector account's code to the server,
 * with the account it is for when the status named one (x-web).
 */
export async function submitChallengeCode(
  code: string,
  accountId?: number | null,
): Promise<SubmittedCode> {
  const body: SubmitChallengeCodeRequest = {
    verification_code: code.trim(),
    ...(accountId ? { account_id: accountId } : {}),
  };
  const { message, data } = await apiClient.requestWithMessage(
    '/admin/submit-twitter-challenge-code',
    { method: 'POST', body, schema: challengeStatusResponseSchema },
  );
  return { message: message ?? ADMIN_MESSAGES.codeSubmitted, status: data };
}

/**
 * Submits a code. The status becomes what the server answered at once: CODE_SUBMITTED for the
 * demo account, which restarts the status poll at 5 s, so the status is fetched again 5 s after
 * the submit; an x-web account's sign-in is already decided. A
 * refusal fetches the status now. The x-web pool refreshes either way.
 */
export function useSubmitChallengeCodeMutation() {
  const queryClient = useQueryClient();
  const refreshPool = () =>
    queryClient.invalidateQueries({ queryKey: adminQueryKeys.xWebAccounts });
  return useMutation({
    mutationKey: ['admin', 'twitter-challenge', 'submit'],
    mutationFn: ({ code, accountId }: { code: string; accountId?: number | null }) =>
      submitChallengeCode(code, accountId),
    onSuccess: ({ status }) => {
      queryClient.setQueryData<ChallengeStatus>(challengeStatusQueryKey, (current) => ({
        ...status,
        challenge_type: status.challenge_type ?? current?.challenge_type ?? null,
        last_challenge_at: status.last_challenge_at ?? current?.last_challenge_at ?? null,
      }));
      void refreshPool();
    },
    onError: () => {
      void refreshPool();
      return queryClient.invalidateQueries({ queryKey: challengeStatusQueryKey });
    },
  });
}
