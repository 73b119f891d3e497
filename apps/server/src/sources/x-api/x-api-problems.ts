/**
 * What the `errors` of an X API response mean: the problem `type`s (and, for suspensions, the
 * wording) decide not_found / suspended / protected.
 */
import { SourceError, type UsersById } from '../../domain/tweet-source.js';
import type { WireBody, WireProblem, WireUser } from './x-api-wire.js';

/** Whether a problem's `type` URI names `kind` (its last path segment). */
export const hasProblemType = (problem: WireProblem, kind: string) =>
  typeof problem.type === 'string' && problem.type.endsWith(`/${kind}`);

/** The source error one problem of `errors` means, or null when it is none of the known kinds. */
export function problemError(problem: WireProblem, fallback: string): SourceError | null {
  const text = `${problem.title ?? ''} ${problem.detail ?? ''}`;
  if (hasProblemType(problem, 'not-authorized-for-resource')) {
    return new SourceError('protected', problem.detail ?? fallback);
  }
  // X answers a suspended user with type resource-not-found: only the detail tells them apart.
  if (/suspend/i.test(text) || hasProblemType(problem, 'user-suspended')) {
    return new SourceError('suspended', problem.detail ?? fallback);
  }
  if (hasProblemType(problem, 'resource-not-found')) {
    return new SourceError('not_found', problem.detail ?? fallback);
  }
  return null;
}

/** Maps `errors` of a 200 without data (or a 404 body) to the source error they mean. */
export function userProblem(body: WireBody<unknown>, fallback: string): SourceError | null {
  const problems = body.errors ?? [];
  for (const problem of problems) {
    const error = problemError(problem, fallback);
    if (error) return error;
  }
  const first = problems[0];
  return first ? new SourceError('unavailable', first.detail ?? first.title ?? fallback) : null;
}

/**
 * Splits the `errors` of a lookup by ids into the users X cannot return (with why). Ids with a
 * problem of no known kind are in neither list, so the caller asks again next time instead of
 * taking the account for gone.
 */
export function missingUsers(
  body: WireBody<WireUser[]>,
  asked: string[],
  returned: Set<string>,
): UsersById['missing'] {
  const missing: UsersById['missing'] = [];
  const seen = new Set<string>();
  for (const problem of body.errors ?? []) {
    const id = problem.resource_id ?? problem.value;
    if (!id || returned.has(id) || seen.has(id) || !asked.includes(id)) continue;
    const error = problemError(problem, id);
    if (!error || error.kind === 'unavailable') continue;
    seen.add(id);
    missing.push({ xUserId: id, kind: error.kind as 'not_found' | 'suspended' | 'protected' });
  }
  return missing;
}
