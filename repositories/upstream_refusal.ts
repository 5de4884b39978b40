/**
 * A configured repository that refuses our credential (its 401 or 403) is a
 * bad gateway for whoever we are serving: passed on as it came, the refusal
 * would read as *their* key being wrong (a 401 with our bearer challenge).
 * The 502 names the repository and the status it answered.
 *
 * @module
 */
import { ServiceError, STATUS_OF_KIND } from "../engine/errors.ts";

/** The 502 of a repository's refusal; `null` when `err` is no refusal (a miss, a rejection, a network failure). */
export function upstreamRefusal(repo: string, err: unknown): ServiceError | null {
  if (!(err instanceof ServiceError) || (err.kind !== "unauthorized" && err.kind !== "forbidden")) {
    return null;
  }
  return new ServiceError(
    "bad_gateway",
    `Repository '${repo}' refused our credential (it answered ${STATUS_OF_KIND[err.kind]}): ${err.message}`,
  );
}
