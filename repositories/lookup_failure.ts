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
 * judges its failure the same way: an outage is a 502, not the repository's refusal.
 *
 * @module
 */
import { publicationRefused } from "../engine/composition/repository.ts";
import { ServiceError } from "../engine/errors.ts";
import { upstreamRefusal } from "./upstream_refusal.ts";

/**
 * The error a lookup of `identity` in `repo` throws for `err`, given the status the repository answered
 * (`null`: no answer); `null` for a miss. A 502 ends the resolution; any other error is a miss it names.
 */
export function lookupFailure(
  repo: string,
  identity: string,
  err: unknown,
  status: number | null,
): ServiceError | null {
  const message = err instanceof Error ? err.message : String(err);
  if (status === null) {
    return new ServiceError("unavailable", `Repository '${repo}' did not answer: ${message}`);
  }
  if (status === 404) return null;
  return upstreamRefusal(repo, err) ??
    new ServiceError(
      "bad_gateway",
      `Repository '${repo}' failed to look up '${identity}' (it answered ${status}): ${message}`,
    );
}

/**
 * The error a publication (promote) to `repo` throws for `err`, given the status the repository answered
 * (`null`: no answer). A refusal of the model (another 4xx: its id taken, its spec invalid there) is a 409
 * with the repository's reason; an outage (no answer, a 5xx, a 429) or a refusal of our credential is a 502
 * naming the repository, as at lookup: the model was not refused, the repository did not take it.
 */
export function publicationFailure(repo: string, err: unknown, status: number | null): ServiceError {
  const message = err instanceof Error ? err.message : String(err);
  if (status === null) {
    return new ServiceError("bad_gateway", `Repository '${repo}' did not answer: ${message}`);
  }
  if (status >= 500 || status === 429) {
    return new ServiceError(
      "bad_gateway",
      `Repository '${repo}' failed to take the model (it answered ${status}): ${message}`,
    );
  }
  return upstreamRefusal(repo, err) ?? publicationRefused(repo, err);
}
