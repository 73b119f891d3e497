import {
  ADMIN_MESSAGES,
  challengeStatusResponseSchema,
  type ChallengeStatus,
  type SubmitChallengeCodeRequest,
} from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { challengeStatusQueryKey } from './get-challenge-status';

/**
 * POST /admin/submit-twitter-challenge-code: hands the collector account's code to the server.
 * Resolves with the server's message (the contract's text when it sends none).
 */
export async function submitChallengeCode(code: string): Promise<string> {
  const body: SubmitChallengeCodeRequest = { verification_code: code.trim() };
  const { message } = await apiClient.requestWithMessage('/admin/submit-twitter-challenge-code', {
    method: 'POST',
    body,
    schema: challengeStatusResponseSchema,
  });
  return message ?? ADMIN_MESSAGES.codeSubmitted;
}

/**
 * Submits a code. The status becomes CODE_SUBMITTED at once, which restarts the status poll at
 * 5 s, so the status is fetched again 5 s after the submit (doc 1 §4, Twitter challenge). A
 * refusal fetches the status now.
 */
export function useSubmitChallengeCodeMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['admin', 'twitter-challenge', 'submit'],
    mutationFn: submitChallengeCode,
    onSuccess: () => {
      queryClient.setQueryData<ChallengeStatus>(challengeStatusQueryKey, (current) => ({
        status: 'CODE_SUBMITTED',
        challenge_type: current?.challenge_type ?? null,
        challenge_details: null,
        last_challenge_at: current?.last_challenge_at ?? null,
      }));
    },
    onError: () => queryClient.invalidateQueries({ queryKey: challengeStatusQueryKey }),
  });
}
