import { ADMIN_MESSAGES } from '@perch/shared';
import { failureReason } from '@/lib/failure-text';
import { useChallengeStatusQuery } from '../api/get-challenge-status';
import { useSubmitChallengeCodeMutation } from '../api/submit-challenge-code';

/**
 * The collector account's verification challenge for the super admin: the polled
 * status, the submit of a code, and what went wrong in the spec's words or the server's.
 */
export function useChallengeStatus() {
  const query = useChallengeStatusQuery();
  const submitMutation = useSubmitChallengeCodeMutation();

  /** Sends a code; blank codes are never sent. Resolves true when the server took it. */
  const submit = async (code: string): Promise<boolean> => {
    if (code.trim() === '' || submitMutation.isPending) return false;
    try {
      await submitMutation.mutateAsync({ code, accountId: query.data?.account_id });
      return true;
    } catch {
      return false;
    }
  };

  return {
    status: query.data,
    isLoading: query.isPending,
    isRefetching: query.isFetching,
    /** Why the status could not be fetched, or null. */
    fetchError: query.isError
      ? failureReason(query.error, ADMIN_MESSAGES.fetchChallengeStatusFailed)
      : null,
    refetch: () => void query.refetch(),
    submit,
    isSubmitting: submitMutation.isPending,
    submitMessage: submitMutation.isSuccess ? submitMutation.data.message : null,
    /** Why the last code was not taken, or null. */
    submitError: submitMutation.isError
      ? failureReason(submitMutation.error, ADMIN_MESSAGES.submitCodeFailed)
      : null,
    clearSubmitResult: submitMutation.reset,
  };
}
