import type { AuthCheckResponse } from '@perch/shared';
import { hashKey, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { ApiError } from '@/lib/api-client';
import { authCheckQueryKey, signedOutCheck } from './get-auth-check';

const AUTH_CHECK_HASH = hashKey(authCheckQueryKey);

/**
 * The scope of the mutations that open or close the session (sign-in and its second step,
 * registration, logout): they run one after another. The sign-in page shows before the logout
 * request has answered; a sign-in sent meanwhile waits for that answer, which would otherwise
 * clear the new session's cookie and sign the new session out on screen.
 */
export const SESSION_MUTATION_SCOPE = { id: 'session' } as const;

/** A mutation that opens a session, in the session scope; `opened` records its answer. */
export function useSessionOpening<TAnswer, TInput>(
  mutationFn: (input: TInput) => Promise<TAnswer>,
  opened: (queryClient: QueryClient, answer: TAnswer) => void,
) {
  const queryClient = useQueryClient();
  return useMutation({
    scope: SESSION_MUTATION_SCOPE,
    mutationFn,
    onSuccess: (answer) => opened(queryClient, answer),
  });
}

/** The account a session check names, or null when it names none. */
function accountOf(check: AuthCheckResponse | undefined): number | null {
  return check?.authenticated && check.userId !== undefined ? check.userId : null;
}

/**
 * Drops every cached query except the session check: handles, analytics, settings, admin data
 * of the account that was signed in. Queries still on screen fetch again for whoever is next.
 */
export function dropAccountQueries(queryClient: QueryClient): void {
  queryClient.removeQueries({ predicate: (query) => query.queryHash !== AUTH_CHECK_HASH });
}

/**
 * Nobody is signed in here any more (a 401, or a sign-out in this tab or another): the session
 * check says so, keeping its CSRF token, and the account's queries are gone. The signed-in pages
 * give way to the sign-in page on the next render.
 */
export function markSignedOut(queryClient: QueryClient): void {
  queryClient.setQueryData<AuthCheckResponse>(authCheckQueryKey, (previous) =>
    signedOutCheck(previous?.csrfToken),
  );
  dropAccountQueries(queryClient);
}

/**
 * Watches the session check and drops the previous account's cached queries the moment its
 * session ends: a 401, a logout (in this tab or another), or another account signing in. The
 * first sign-in of a signed-out browser has nothing of anybody's to drop. Returns the
 * unsubscribe function.
 */
export function scopeQueriesToAccount(queryClient: QueryClient): () => void {
  let account = accountOf(queryClient.getQueryData<AuthCheckResponse>(authCheckQueryKey));
  return queryClient.getQueryCache().subscribe((event) => {
    if (event.type !== 'updated' || event.query.queryHash !== AUTH_CHECK_HASH) return;
    // A failed check keeps its last data: whether that ends the session is useAuth's call.
    const next = accountOf(event.query.state.data as AuthCheckResponse | undefined);
    if (next === account) return;
    const previous = account;
    account = next;
    if (previous !== null) dropAccountQueries(queryClient);
  });
}

/**
 * A session check that failed without the server judging the session: no answer (offline, a
 * timeout, the retry circuit open) or a server error. It says nothing about who is signed in.
 */
export function isUnjudgedCheckFailure(error: unknown): boolean {
  if (!(error instanceof ApiError)) return error instanceof TypeError;
  return error.status === 0 || error.status === 408 || error.status === 429 || error.status >= 500;
}
