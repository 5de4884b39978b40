/**
 * The `tests` section: embedded test cases, `given` and `expect` keyed by
 * concrete canonical addresses. Two cases with one description are a warning:
 * a verification report names its cases by description alone.
 *
 * @module
 */
import { isObject } from "../../json/value.ts";
import type { NamedAddress } from "../undeclared_addresses.ts";
import type { ModelSpec, TestCase } from "../types.ts";
import type { SectionContext } from "./context.ts";

/**
 * The test cases of a spec (absent or null: none); each address they write or
 * expect is added to `addresses`, for the check against the schema.
 */
export function compileTestCases(
  spec: ModelSpec,
  ctx: SectionContext,
  addresses: NamedAddress[],
): TestCase[] {
  const described = new Map<unknown, string>();
  for (const { entry: t, location } of ctx.entries(spec, "tests")) {
    const first = described.get(t.description);
    if (first) ctx.warn(`${location}.description`, `${first} has this description too`);
    else if (typeof t.description === "string") described.set(t.description, location);
    for (const [member, verb] of [["given", "writes"], ["expect", "expects"]]) {
      const values = t[member];
      if (!isObject(values)) continue;
      for (const key of Object.keys(values)) {
        const at = `${location}.${member}['${key}']`;
        const path = ctx.address(key, at, true);
        if (path) addresses.push({ path, at, verb });
      }
    }
  }
  return Array.isArray(spec.tests) ? spec.tests : [];
}
