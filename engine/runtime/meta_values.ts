/**
 * The values a live meta property may take: what JSON Schema allows for the
 * keyword, and a boolean for `relevant`. A value of another type would be
 * published in the effective schema as an invalid keyword and not enforced,
 * so the meta derivation computing it fails like one whose expression fails.
 *
 * @module
 */
import { compilePattern } from "../expr/regex.ts";
import type { Json } from "../json/value.ts";
import { MAX_QUOTED_WORD, quoted } from "../quoted.ts";
import { tracedResult } from "./traces.ts";

const boolean = (v: Json) => typeof v === "boolean";
const number = (v: Json) => typeof v === "number";
const length = (v: Json) => Number.isInteger(v) && (v as number) >= 0;

/** By snake_case meta key: the test and what it asks for. */
const KINDS: Record<string, [(v: Json) => boolean, string]> = {
  required: [boolean, "true or false"],
  read_only: [boolean, "true or false"],
  relevant: [boolean, "true or false"],
  minimum: [number, "a number"],
  maximum: [number, "a number"],
  multiple_of: [(v) => number(v) && (v as number) > 0, "a number greater than 0"],
  min_length: [length, "an integer of at least 0"],
  max_length: [length, "an integer of at least 0"],
  pattern: [(v) => typeof v === "string", "a regular expression (RE2 syntax)"],
  enum: [Array.isArray, "an array of the allowed values"],
};

/** Why `value` cannot be the meta property `key` (snake_case), or null when it can. */
export function metaValueProblem(key: string, value: Json): string | null {
  const kind = KINDS[key];
  // The value quoted short (as a trace's result), never serialised whole into the message.
  if (kind && !kind[0](value)) {
    return `the value must be ${kind[1]}, not ${JSON.stringify(tracedResult(value))}`;
  }
  if (key !== "pattern") return null;
  try {
    compilePattern(value as string);
    return null;
  } catch (err) {
    // A pattern is one word of the author's: quoted as short as an id (RE2's own error may quote it again).
    return `pattern ${JSON.stringify(quoted(value as string, MAX_QUOTED_WORD))} is not usable: ${
      (err as Error).message
    }`;
  }
}
