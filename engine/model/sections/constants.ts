/**
 * The `constants` section: immutable named values, bound as `$const.<name>` in
 * every expression. Its shape (an object of name to value) is all there is to
 * check, and the shape check does that.
 *
 * @module
 */
import { isObject, type Json } from "../../json/value.ts";
import type { ModelSpec } from "../types.ts";

/** The constants of a spec (absent or null: none). */
export function compileConstants(spec: ModelSpec): Record<string, Json> {
  return isObject(spec.constants) ? spec.constants : {};
}
