/**
 * The path members of an API operation's routes (`{id}` in
 * `/models/{id}/state`), and the values no URL path segment can carry.
 *
 * @module
 */
import { badRequest } from "../errors.ts";
import type { RestBinding } from "./operation.ts";

/** The `{name}` members of a path template. */
export function pathMembers(template: string): string[] {
  return [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
}

/**
 * Refuses an empty, `.` or `..` path member, in process as over HTTP: such a
 * segment reaches no route (URLs drop dot segments, `%2e` included), so a
 * remote caller would get another route's answer where an embedded one got
 * this operation's.
 */
// deno-lint-ignore no-explicit-any
export function checkPathMembers(op: { rest: readonly RestBinding<any, any>[] }, input: unknown): void {
  for (const binding of op.rest) {
    for (const member of pathMembers(binding.path)) {
      const value = (input as Record<string, unknown>)[member];
      if (value === "" || value === "." || value === "..") {
        throw badRequest(
          `Invalid field '${member}': ${value ? `'${value}' names no resource` : "must not be empty"}`,
        );
      }
    }
  }
}
