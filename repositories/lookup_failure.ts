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
 * spec of it) or call it not found, hiding the outage.
 *
 * @module
 */
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
