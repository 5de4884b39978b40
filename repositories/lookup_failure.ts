/**
 * What a repository's failed spec lookup means for the resolution walking the
 * chain (decisions/composition.md "Resolution"). A 404 is a miss: the next
 * repository may hold the model. A repository that does not answer at all
 * (unreachable, timed out, its child not started, or its child's own server in
 * `svc mcp --url` mode not answering) is a miss too, as designed,
 * but one the final "not found" names. Any other answer is no miss: a refusal
 * of our credential (401, 403) or a failure (a 5xx, a 429, an answer that is
 * not a spec) is a 502 naming the repository and its status, since falling
 * through would resolve the identity from a later repository (maybe another
 * spec of it) or call it not found, hiding the outage. A publication (promote)
 * judges its failure the same way: an outage is a 502, not the repository's refusal. The 502 passes on the
 * repository's `Retry-After`, when it gave one.
 *
 * @module
 */
import { publicationRefused } from "../engine/composition/repository.ts";
import { ServiceError } from "../engine/errors.ts";
import { upstreamRefusal } from "./upstream_refusal.ts";

/** The longest wait passed on from a repository's `Retry-After` (s): an hour; a longer one is cut to it. */
export const MAX_RETRY_AFTER_S = 3600;

/**
 * What a repository answered: its status (`null`: no answer) and its `Retry-After` in seconds when that was a
 * number of seconds (an HTTP date or anything else is dropped), capped at {@link MAX_RETRY_AFTER_S}.
 */
export interface RepositoryAnswer {
  status: number | null;
  retryAfter?: number;
}

/** A `Retry-After` header's seconds, capped; `undefined` when absent or not a number of seconds. */
export function retryAfterSeconds(header: string | null): number | undefined {
  return header !== null && /^\s*\d{1,10}\s*$/.test(header)
    ? Math.min(Number(header), MAX_RETRY_AFTER_S)
    : undefined;
}

/**
 * The 502 of a repository's failed answer, carrying its `Retry-After` (a header on REST, said in the message
 * for the surfaces without one).
 */
function failed(what: string, answer: RepositoryAnswer, message: string): ServiceError {
  const wait = answer.retryAfter === undefined ? "" : `, retry after ${answer.retryAfter} s`;
  const error = new ServiceError("bad_gateway", `${what} (it answered ${answer.status}${wait}): ${message}`);
  error.retryAfter = answer.retryAfter;
  return error;
}

/**
 * The error a lookup of `identity` in `repo` throws for `err`, given what the repository answered; `null` for a
 * miss. A 502 ends the resolution; any other error is a miss it names.
 */
export function lookupFailure(
  repo: string,
  identity: string,
  err: unknown,
  answer: RepositoryAnswer,
): ServiceError | null {
  const message = err instanceof Error ? err.message : String(err);
  if (answer.status === null) {
    return new ServiceError("unavailable", `Repository '${repo}' did not answer: ${message}`);
  }
  if (answer.status === 404) return null;
  return upstreamRefusal(repo, err) ??
    failed(`Repository '${repo}' failed to look up '${identity}'`, answer, message);
}

/**
 * The error a publication (promote) to `repo` throws for `err`, given what the repository answered. A refusal
 * of the model (another 4xx: its id taken, its spec invalid there) is a 409 with the repository's reason; an
 * outage (no answer, a 5xx, a 429) or a refusal of our credential is a 502 naming the repository, as at
 * lookup: the model was not refused, the repository did not take it.
 */
export function publicationFailure(repo: string, err: unknown, answer: RepositoryAnswer): ServiceError {
  const message = err instanceof Error ? err.message : String(err);
  const { status } = answer;
  if (status === null) {
    return new ServiceError("bad_gateway", `Repository '${repo}' did not answer: ${message}`);
  }
  if (status >= 500 || status === 429) {
    return failed(`Repository '${repo}' failed to take the model`, answer, message);
  }
  return upstreamRefusal(repo, err) ?? publicationRefused(repo, err);
}
