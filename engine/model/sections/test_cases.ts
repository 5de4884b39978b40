/**
 * The `tests` section: embedded test cases, `given` and `expect` keyed by
 * concrete canonical addresses.
 *
 * @module
 */
import { isObject } from "../../json/value.ts";
import type { ModelSpec, TestCase } from "../types.ts";
import type { SectionContext } from "./context.ts";

/** The test cases of a spec (absent or null: none). */
export function compileTestCases(spec: ModelSpec, ctx: SectionContext): TestCase[] {
  for (const { entry: t, location } of ctx.entries(spec, "tests")) {
    for (const member of ["given", "expect"]) {
      const addresses = t[member];
      if (!isObject(addresses)) continue;
      for (const key of Object.keys(addresses)) ctx.address(key, `${location}.${member}['${key}']`, true);
    }
  }
  return Array.isArray(spec.tests) ? spec.tests : [];
}
